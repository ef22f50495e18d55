// classroom.js: classroom mode in the page. The teacher's page shows how
// many students are watching (a student page names itself with a random
// id per tab when it polls, so it counts before any partition is open);
// a student's page follows the partition the teacher opened (unless the
// student turns that off or picks another one) and the guided lesson the
// teacher drives.

import { api } from '../common/api.js';

const POLL_MS = 1000;

/**
 * setupClassroom starts polling /api/classroom when classroom mode is on.
 * @param {import('./app.js').App} app
 */
export function setupClassroom(app) {
  const main = document.getElementById('app');
  if (main.dataset.classroom !== 'true') return;
  const student = main.dataset.role === 'student';
  const follow = document.getElementById('follow-teacher');
  const counts = document.querySelectorAll('.students-count');
  // ?follow=off opens a partition of one's own (a student's exercise log).
  if (follow && new URLSearchParams(location.search).get('follow') === 'off') follow.checked = false;
  // A student who picks another partition stops following the teacher.
  document.getElementById('topic-select')?.addEventListener('change', () => {
    if (follow) follow.checked = false;
  });
  follow?.addEventListener('change', () => {
    if (follow.checked) tick();
  });

  // The lessons panel (lessons.js) draws the teacher's run when told.
  let lastRun = '';
  const showLessonRun = async (id) => {
    const st = await api('GET', `/api/lessons/runs/${encodeURIComponent(id)}`);
    const text = JSON.stringify(st);
    if (text === lastRun) return;
    lastRun = text;
    document.dispatchEvent(new CustomEvent('offsetlab:lesson-run', { detail: st }));
  };

  const client = student ? clientId() : '';
  let running = false;
  const tick = async () => {
    if (running || document.hidden) return;
    running = true;
    try {
      const c = await api('GET', '/api/classroom' + (client ? '?client=' + client : ''));
      for (const node of counts) node.textContent = String(c.students);
      const t = c.teacherPartition;
      const cur = app.current();
      if (student && follow?.checked && t && (!cur.hasTopic || cur.topic !== t.topic || cur.partition !== t.partition)) {
        await app.navigate(t.topic, t.partition);
      }
      if (student && c.lessonRun) await showLessonRun(c.lessonRun);
    } catch {
      // The broker banner and the stream status already say what is wrong.
    } finally {
      running = false;
    }
  };
  setInterval(tick, POLL_MS);
  tick();
}

/** clientId is this tab's name for the presence count, kept across reloads of the tab. */
function clientId() {
  let id = '';
  try {
    id = sessionStorage.getItem('offsetlab.client') || '';
  } catch {
    // storage disabled: a new id per load
  }
  if (!/^[A-Za-z0-9_-]{8,40}$/.test(id)) {
    id = Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, '0')).join('');
    try {
      sessionStorage.setItem('offsetlab.client', id);
    } catch {
      // the count still works for this load
    }
  }
  return id;
}
