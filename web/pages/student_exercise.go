package pages

import (
	"net/http"

	"github.com/offsetlab/offsetlab/internal/catalog"
)

// sectionExercise marks the student's exercise page; it has no entry of
// its own in the masthead's navigation (the classroom bar of the stage
// links to it).
const sectionExercise = "exercise"

// studentView is the student's exercise page. The server renders the
// frame, the join form and every label; static/exercises/student.js asks
// the API who the browser is (GET /api/classroom/students/me), shows the
// student's Kafka identity, the exercise the teacher started and the
// checklist, and keeps them live.
type studentView struct {
	layoutView
	// Clients are the starter code's clients, in the order of the tabs.
	Clients []starterClient
}

// mainAttrs is the student's main#app: the viewer's role and whether the
// hands-on exercises are on (static/exercises/student.js reads it).
func (v studentView) mainAttrs() appMain {
	return appMain{Class: "section-main student-main", Page: "student", Data: dataAttrs("data-role", v.Role, "data-hands-on", boolText(v.Problem.IsZero()))}
}

// starterClient is one tab of the starter code: the API's client name,
// its label and how to install it, the same in every language (a
// program's own name and command).
type starterClient struct {
	Client, Label, Install string
}

// starterClients are the clients exercises.Exercise.Starters writes for.
func starterClients() []starterClient {
	return []starterClient{
		{"python", "Python", "pip install confluent-kafka"},
		{"java", "Java", "org.apache.kafka:kafka-clients"},
		{"kcat", "kcat", "apt install kcat · brew install kcat"},
		{"go", "Go", "go get github.com/twmb/franz-go/pkg/kgo"},
	}
}

// identityField is one row of the student's Kafka identity: the key
// of the API's "kafka" object it shows and the catalogue key of its
// label. Copy gives it a Copy button.
type identityField struct {
	Field, LabelKey string
	Copy            bool
}

// identityFields are the rows of the identity card, in order.
func identityFields() []identityField {
	return []identityField{
		{"bootstrap", "student.id.bootstrap", true},
		{"securityProtocol", "student.id.securityProtocol", false},
		{"saslMechanism", "student.id.saslMechanism", false},
		{"username", "student.id.username", true},
		{"password", "student.id.password", true},
		{"topic", "student.id.topic", false},
		{"transactionalIdPrefix", "student.id.transactionalIdPrefix", false},
		{"groupPrefix", "student.id.groupPrefix", false},
	}
}

// StudentExercise is GET /exercise: where a student joins the class with
// a name, then sees their Kafka identity and does the exercise the
// teacher started, checked live. Without hands-on exercises it says so
// (404).
func (s *Server) StudentExercise(w http.ResponseWriter, r *http.Request) {
	v := studentView{layoutView: s.newLayout(r, sectionExercise, tr("student.title")), Clients: starterClients()}
	status := http.StatusOK
	if s.deps.Exercises == nil {
		v.Problem = catalog.M("error.exercisesDisabled")
		status = http.StatusNotFound
	}
	s.renderPage(w, r, status, studentExercisePage(v))
}
