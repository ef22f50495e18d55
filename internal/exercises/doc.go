// Package exercises grades hands-on exercises: students write to Kafka
// with their own clients (confluent-kafka, the Java client, kcat,
// franz-go) and the broker says whether they did what the exercise asks.
//
// An Exercise is plain data (builtin.go and one exercise_*.go per
// exercise): what to build, in catalogue sentences ("exercise." keys of
// internal/catalog, English and Korean), the starter code of each client
// (starters.go), and the checks. Each check is a Rule, one type per file
// (rule_*.go), that reads what the broker holds — the student's partition
// log through the inspector (markers, producer id and epoch, sequences,
// each offset's outcome and who receives it), their group's committed
// offsets, the transaction coordinator, their share group's delivery
// state offset by offset — never what the student says, and
// answers a Verdict: ok or not, the Evidence it looked at (offsets,
// producer id and epoch, the marker; each producer also by its name on the
// student's partition page, P1 …, read once per grading from the same
// table the page's live feed sends), and when failing a hint that names
// the cause ("your records have producer id -1: enable.idempotence is
// off").
//
// A Class holds the students who joined (class.go): a validated name,
// unique in the class, a secret cookie token, and their Kafka identity —
// the bootstrap address, SCRAM credentials created for them on the
// brokers with ACLs on their own prefix (`student-<name>-`, in a
// namespace nothing else of the lab writes), and the names of
// each exercise's topic, group and transactional id. A Grader (grader.go)
// recomputes every student's results of the current exercise live: a
// bounded poll of each student's partition pointers, a full evaluation
// when they moved (or every few seconds, for group offsets and the
// coordinator), each student in its own goroutine under a deadline and a
// shared limit, so one slow or broken student never delays another's
// result. Waiters learn of any change through Wait, which a long-polling
// page calls. An exercise whose consumer reads what it did not write (the
// share exercise's queue) has Jobs (jobs.go): the grader writes them to the
// student's topic once per attempt, before grading, through the Broker —
// the one write the server makes in a student's namespace.
//
// It imports internal/inspect for the offset model its checks read
// (entries, markers, who receives what) and internal/cluster for the
// broker's answers (groups, the coordinator) and to make students' users;
// it reads the broker only through the Broker interface, which *lab.Lab
// satisfies. It imports neither net/http nor templ; web/api serves it.
package exercises
