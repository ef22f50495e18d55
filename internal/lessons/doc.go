// Package lessons runs the seeds' experiments as guided lessons: data that
// says, step by step, what to do to the brokers (create topics, produce
// with a fault, run the order processor with a crash, drive a transaction,
// read the log), what to tell the class (catalogue sentences, "lesson."
// keys of internal/catalog, in English and Korean), which command a
// learner would type on real Kafka to do or see the same, and what the
// broker must then report ("read_committed receives O-2 once: expected 1,
// observed 1 ✓").
//
// A Lesson is plain data (builtin.go and the lesson_*.go files, named
// after what they teach; Lesson.Seed names the tutorial). Each action
// a step can take is a type in a file of its own (produce.go,
// run_processor.go, stop_followers.go, ...) that carries it out through the
// Lab — the same use cases the page's controls use — and reads the facts
// its checks compare (facts.go) from the structured outcomes the Lab
// returns. A Runner starts runs of a lesson: each run gives every topic,
// group and transactional.id of the lesson a fresh per-run suffix, so a
// lesson can be repeated on a real cluster without deleting anything, and
// keeps a cursor and the results of the steps done. Next does one step,
// Finish runs to the end, Reset starts over with new names. Expectations
// are checked against what the broker answered, never against what the
// lesson hoped, and hold the same values on the embedded broker as on
// Apache Kafka 4.3.1. A lesson that needs replication
// (three brokers) refuses to start on the embedded broker instead of
// pretending.
//
// It imports neither net/http nor templ; the web package serves it. It
// imports internal/lab for the request and outcome types of one use case
// (Lab.ReadAsGroup, a group's consumer resuming with auto.offset.reset),
// not to call it: the Lab interface (deps.go) is what it drives.
//
// Costs: a step is one to a few Kafka requests or client sessions; runs
// keep their transactional producers open between steps, as an
// application would. Runner.Close ends them; a run evicted by newer ones
// (MaxRuns) is closed the same way.
package lessons
