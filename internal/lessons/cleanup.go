package lessons

import (
	"context"
	"regexp"
	"slices"
	"strings"

	"github.com/offsetlab/offsetlab/internal/problem"
)

// Cleaning up: a lesson run names its topics, groups and transactional ids
// with a fresh suffix, so that a lesson repeats on a shared cluster without
// deleting anything; these remove what runs left behind once the teacher
// no longer needs it.

// Cleanup ends run id's application processes (their open transactions
// aborted) and deletes its topics, then resets the run (fresh names,
// cursor on the first step).
func (r *Runner) Cleanup(ctx context.Context, id string) (RunState, error) {
	return r.exclusive(id, "error.lessonBusyReset", func(rn *run) error {
		rn.endProcesses()
		if err := r.deleteTopics(ctx, rn.state().Topics); err != nil {
			return err
		}
		rn.reset()
		return nil
	})
}

// CleanupAll deletes every topic a lesson run made — of the runs this
// server keeps and of those an earlier server left — except the current
// run's, and forgets the other runs, ending their processes. It returns
// the topics it deleted.
func (r *Runner) CleanupAll(ctx context.Context) ([]string, error) {
	if r.lab.ReadOnly() {
		return nil, problem.New(problem.Forbidden, "error.readOnly", "brokers", strings.Join(r.lab.Brokers(), ","))
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
	keep := []string{}
	if current != nil {
		keep = current.state().Topics
	}
	topics, err := r.lab.Topics(ctx)
	if err != nil {
		return nil, err
	}
	made := r.lessonTopicPattern()
	var doomed []string
	for _, t := range topics {
		if made.MatchString(t.Name) && !slices.Contains(keep, t.Name) {
			doomed = append(doomed, t.Name)
		}
	}
	return doomed, r.deleteTopics(ctx, doomed)
}

// lessonTopicPattern matches the names lesson runs give topics: a
// lesson's logical topic name and a six-hex-digit run suffix.
func (r *Runner) lessonTopicPattern() *regexp.Regexp {
	var names []string
	for i := range r.lessons {
		for _, n := range lessonTopics(&r.lessons[i]) {
			if !slices.Contains(names, n) {
				names = append(names, regexp.QuoteMeta(n))
			}
		}
	}
	return regexp.MustCompile(`^(` + strings.Join(names, "|") + `)-[0-9a-f]{6}$`)
}

func (r *Runner) deleteTopics(ctx context.Context, topics []string) error {
	for _, t := range topics {
		if err := r.lab.DeleteTopic(ctx, t); err != nil && !problem.Is(err, "error.unknownTopic") {
			return err
		}
	}
	return nil
}
