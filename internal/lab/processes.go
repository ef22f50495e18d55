package lab

import (
	"strconv"
	"sync"

	"github.com/offsetlab/offsetlab/internal/problem"
	"github.com/offsetlab/offsetlab/internal/producer"
)

// DashboardProcess is the application process of the dashboard's own
// transaction panel. A lesson names its processes itself, one per
// application it plays (two share a transactional.id in the zombie case).
const DashboardProcess = "dashboard"

// MaxProcesses bounds the application processes a Lab keeps; a lesson run
// has at most a few and the runner keeps a bounded number of runs.
const MaxProcesses = 64

// processes are the application processes that drive transactions step by
// step: each a set of transactional producers (producer.Sessions), as one
// running application holds them.
type processes struct {
	conn   producer.Connection
	limits producer.SessionLimits

	mu     sync.Mutex
	byName map[string]*producer.Sessions
}

func newProcesses(conn producer.Connection, limits producer.SessionLimits) *processes {
	return &processes{conn: conn, limits: limits, byName: map[string]*producer.Sessions{}}
}

// get returns the process name, starting it if it is new.
func (p *processes) get(name string) (*producer.Sessions, error) {
	if name == "" {
		name = DashboardProcess
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if s, ok := p.byName[name]; ok {
		return s, nil
	}
	if len(p.byName) >= MaxProcesses {
		return nil, problem.New(problem.Busy, "error.tooManyProcesses", "max", strconv.Itoa(MaxProcesses))
	}
	s := producer.NewSessions(p.conn, p.limits)
	p.byName[name] = s
	return s, nil
}

// end stops the process name as a stopped application stops: its open
// transactions aborted, its producers closed.
func (p *processes) end(name string) {
	p.mu.Lock()
	s := p.byName[name]
	delete(p.byName, name)
	p.mu.Unlock()
	if s != nil {
		s.Close()
	}
}

func (p *processes) closeAll() {
	p.mu.Lock()
	all := p.byName
	p.byName = map[string]*producer.Sessions{}
	p.mu.Unlock()
	for _, s := range all {
		s.Close()
	}
}
