package lessons

import (
	"context"
	"slices"
	"strings"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/problem"
)

// Cleaning up: a lesson run names its topics, groups and transactional ids
// with a fresh suffix, so that a lesson repeats on a shared cluster without
// deleting anything; these remove what runs left behind once the teacher
// no longer needs it. Only topics the record of created topics holds are
// ever deleted (topic_record.go): a name that merely looks like a lesson
// topic's, such as a team's orders-202612, is someone else's.

// Cleanup ends run id's application processes (their open transactions
// aborted) and deletes the topics it created, then resets the run (fresh
// names, cursor on the first step).
func (r *Runner) Cleanup(ctx context.Context, id string) (RunState, error) {
	return r.exclusive(id, "error.lessonBusyReset", func(rn *run) error {
		rn.endProcesses()
		var made []string
		for _, t := range rn.state().Topics {
			if r.created.has(t) {
				made = append(made, t)
			}
		}
		if err := r.deleteTopics(ctx, made); err != nil {
			return err
		}
		rn.reset()
		return nil
	})
}

// CleanupPlan lists, without changing anything, the topics CleanupAll
// would delete: those lesson runs created — this server's and, when the
// record outlives the server (Open), earlier servers' — that still exist,
// except the topics of the current run and of runs stepping right now.
func (r *Runner) CleanupPlan(ctx context.Context) ([]string, error) {
	doomed, _, err := r.cleanupPlan(ctx)
	return doomed, err
}

// CleanupAll deletes every topic CleanupPlan lists, and forgets the runs
// other than the current one (and those stepping), ending their
// processes. It returns the topics it deleted.
func (r *Runner) CleanupAll(ctx context.Context) ([]string, error) {
	return r.cleanupTopics(ctx, nil)
}

// CleanupConfirmed deletes the topics named in confirm, as CleanupAll
// does, after a page showed the teacher CleanupPlan's list: every name
// must be on that list, else nothing is deleted and the problem
// (conflict) names the first one that is not. A listed topic deleted
// meanwhile by someone else is skipped. It returns the topics it deleted.
func (r *Runner) CleanupConfirmed(ctx context.Context, confirm []string) ([]string, error) {
	if confirm == nil {
		confirm = []string{}
	}
	return r.cleanupTopics(ctx, confirm)
}

// cleanupTopics deletes the planned topics, only those in confirm unless
// it is nil.
func (r *Runner) cleanupTopics(ctx context.Context, confirm []string) ([]string, error) {
	if r.lab.ReadOnly() {
		return nil, problem.New(problem.Forbidden, "error.readOnly", "brokers", strings.Join(r.lab.Brokers(), ","))
	}
	doomed, gone, err := r.cleanupPlan(ctx)
	if err != nil {
		return nil, err
	}
	if confirm != nil {
		for _, name := range confirm {
			if !slices.Contains(doomed, name) && !slices.Contains(gone, name) {
				return nil, problem.New(problem.Conflict, "error.lessonCleanupNotListed", "topic", name)
			}
		}
		doomed = slices.DeleteFunc(doomed, func(n string) bool { return !slices.Contains(confirm, n) })
	}
	r.mu.Lock()
	current := r.runs[r.current]
	var others []*run
	for id, rn := range r.runs {
		if rn != current && !rn.busy() {
			others = append(others, rn)
			delete(r.runs, id)
		}
	}
	r.mu.Unlock()
	for _, rn := range others {
		rn.endProcesses()
	}
	// Names whose topics no longer exist need no record.
	if err := r.created.forget(gone...); err != nil {
		return nil, err
	}
	if doomed == nil {
		doomed = []string{}
	}
	return doomed, r.deleteTopics(ctx, doomed)
}

// cleanupPlan is the recorded topics that exist and may go (doomed), and
// the recorded names of no topic (gone), both leaving out the topics of
// the current run and of runs stepping now.
func (r *Runner) cleanupPlan(ctx context.Context) (doomed, gone []string, err error) {
	topics, err := r.lab.Topics(ctx)
	if err != nil {
		return nil, nil, err
	}
	keep := r.activeTopics()
	for _, name := range r.created.list() {
		if slices.Contains(keep, name) {
			continue
		}
		if slices.ContainsFunc(topics, func(t cluster.TopicInfo) bool { return t.Name == name }) {
			doomed = append(doomed, name)
		} else {
			gone = append(gone, name)
		}
	}
	return doomed, gone, nil
}

// activeTopics is the topics of the current run and of every run stepping
// now: cleanup leaves them alone.
func (r *Runner) activeTopics() []string {
	r.mu.Lock()
	var active []*run
	for id, rn := range r.runs {
		if id == r.current || rn.busy() {
			active = append(active, rn)
		}
	}
	r.mu.Unlock()
	var keep []string
	for _, rn := range active {
		keep = append(keep, rn.state().Topics...)
	}
	return keep
}

// deleteTopics deletes topics (one already gone is fine) and forgets each
// deleted one in the record.
func (r *Runner) deleteTopics(ctx context.Context, topics []string) error {
	for _, t := range topics {
		if err := r.lab.DeleteTopic(ctx, t); err != nil && !problem.Is(err, "error.unknownTopic") {
			return err
		}
		if err := r.created.forget(t); err != nil {
			return err
		}
	}
	return nil
}
