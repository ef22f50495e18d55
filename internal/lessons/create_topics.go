package lessons

import (
	"strconv"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/live"
)

// CreateTopics creates the lesson's topics.
type CreateTopics struct{ Topics []TopicSpec }

// Kind implements Action.
func (CreateTopics) Kind() string { return "create-topics" }

// Facts implements Action.
func (CreateTopics) Facts() []Fact { return []Fact{FactCreated} }

// Names implements Action.
func (a CreateTopics) Names() []string { return a.TopicNames() }

// TopicNames implements Action.
func (a CreateTopics) TopicNames() []string {
	var out []string
	for _, t := range a.Topics {
		out = append(out, t.Name)
	}
	return out
}

// Icon implements Action.
func (CreateTopics) Icon() string { return live.EventInfo }

func (a CreateTopics) run(sc *stepContext) (*observation, error) {
	var obs *observation
	for _, spec := range a.Topics {
		name := sc.name(spec.Name)
		if obs == nil {
			obs = newObservation(name, 0)
		}
		// Recorded first: cleanup deletes what was recorded, and a topic
		// that exists unrecorded would never be cleaned up.
		if err := sc.run.runner.created.add(name); err != nil {
			return obs, err
		}
		_, err := sc.lab.CreateTopic(sc, cluster.TopicSpec{
			Name: name, Partitions: spec.Partitions, ReplicationFactor: spec.ReplicationFactor, Configs: spec.Configs,
		})
		if err != nil {
			return obs, err
		}
		obs.say("topicCreated", "topic", name)
	}
	obs.set(FactCreated, strconv.Itoa(len(a.Topics)))
	return obs, nil
}
