// Package app assembles Offset Lab's services over one Kafka connection:
// the inspector, the live hub, the producers and processor, the
// step-by-step transaction sessions and the lesson runner, ready for the
// web layer. cmd/server and the end-to-end tests both build the dashboard
// with Assemble, so the tests exercise exactly the server's wiring.
package app

import (
	"log/slog"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/inspect"
	"github.com/offsetlab/offsetlab/internal/lessons"
	"github.com/offsetlab/offsetlab/internal/live"
	"github.com/offsetlab/offsetlab/internal/localkafka"
	"github.com/offsetlab/offsetlab/internal/producer"
	"github.com/offsetlab/offsetlab/web"
)

// Services are the assembled services. Close releases them (not the
// Kafka connection, which the caller owns).
type Services struct {
	// Deps is what web.New needs.
	Deps  web.Deps
	close []func()
}

// Assemble builds every service over kafka. local is the real cluster the
// server runs itself (--local-kafka), or nil; log may be nil.
func Assemble(kafka *cluster.Cluster, local *localkafka.Cluster, log *slog.Logger) *Services {
	inspector := inspect.New(kafka.Client(), kafka.ClientOpts()...)
	hub := live.NewHub(inspector, web.LiveGroups(kafka), live.Config{Logger: log})
	sessions := producer.NewSessions(kafka.ClientOpts())
	var lessonBrokers lessons.Brokers
	var webBrokers web.BrokerControl
	if local != nil {
		// Only a non-nil cluster may become an interface value: a typed
		// nil would read as "the server runs the brokers".
		lessonBrokers, webBrokers = local, local
	}
	runner := lessons.New(lessons.Deps{
		Cluster:     kafka,
		Log:         inspector,
		Producer:    producer.New(kafka.ClientOpts()),
		Processor:   producer.NewProcessor(kafka.ClientOpts()),
		NewSessions: func() lessons.Sessions { return producer.NewSessions(kafka.ClientOpts()) },
		Narrator:    hub,
		Brokers:     lessonBrokers,
	})
	return &Services{
		Deps: web.Deps{
			Cluster:   kafka,
			Log:       inspector,
			Producer:  producer.New(kafka.ClientOpts()),
			Processor: producer.NewProcessor(kafka.ClientOpts()),
			Live:      hub,
			Sessions:  sessions,
			Lessons:   runner,
			Brokers:   webBrokers,
		},
		// Closed in reverse: the runner and sessions may still narrate.
		close: []func(){hub.Close, sessions.Close, runner.Close},
	}
}

// Close stops the lesson runner, the sessions' producers and the live hub.
func (s *Services) Close() {
	for i := len(s.close) - 1; i >= 0; i-- {
		s.close[i]()
	}
}
