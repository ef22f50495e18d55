package pages

import (
	"net/http"

	"github.com/offsetlab/offsetlab/internal/catalog"
	"github.com/offsetlab/offsetlab/internal/exercises"
	"github.com/offsetlab/offsetlab/web/httpx"
)

// exerciseBoardView is the teacher's Exercises page: the exercises to
// pick from, the one running, and where students join. The scoreboard
// itself (students × checks) is drawn and kept live by
// static/exercises/board.js from the results API.
type exerciseBoardView struct {
	layoutView
	Exercises []exercises.Summary
	// Current is the exercise the teacher started last, "" before any.
	Current string
	// JoinURL is where students join, "" outside classroom mode;
	// JoinWarning why they cannot (a loopback address), nil if they can.
	JoinURL     string
	JoinWarning *catalog.Message
}

// mainAttrs is the board's main#app: the running exercise and the one to
// open on (static/exercises/board.js reads both), and whether a class is on.
func (v exerciseBoardView) mainAttrs() appMain {
	return appMain{Class: "board-main", Page: "exercise-board", Data: dataAttrs("data-current", v.Current, "data-selected", v.Selected(), "data-classroom", boolText(v.Classroom))}
}

// Selected is the exercise the page opens on: the running one, else
// the first.
func (v exerciseBoardView) Selected() string {
	if v.Current != "" {
		return v.Current
	}
	if len(v.Exercises) > 0 {
		return v.Exercises[0].ID
	}
	return ""
}

// CSVPath is the results download of the exercise the page opens on.
func (v exerciseBoardView) CSVPath() string {
	return "/api/exercises/" + v.Selected() + "/results.csv"
}

// ExerciseBoard is GET /exercises: the teacher's scoreboard. A student
// is told where their own page is; a server without a class says so.
func (s *Server) ExerciseBoard(w http.ResponseWriter, r *http.Request) {
	v := exerciseBoardView{layoutView: s.newLayout(r, sectionExercises, "Exercises"), JoinURL: s.access.JoinURL, JoinWarning: s.access.JoinWarning}
	switch {
	case s.deps.Exercises == nil:
		v.Problem = catalog.M("error.exercisesDisabled")
		s.renderPage(w, r, http.StatusNotFound, exerciseBoardPage(v))
		return
	case httpx.RoleOf(r) != httpx.Teacher:
		v.Problem = catalog.M("board.teacherOnly")
		s.renderPage(w, r, http.StatusForbidden, exerciseBoardPage(v))
		return
	}
	for _, e := range exercises.Builtin() {
		v.Exercises = append(v.Exercises, e.Summary())
	}
	v.Current = s.deps.Exercises.Current()
	s.renderPage(w, r, http.StatusOK, exerciseBoardPage(v))
}
