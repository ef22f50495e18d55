package lessons

import (
	"maps"
	"slices"
	"strings"

	"github.com/offsetlab/offsetlab/internal/live"
)

// AlterConfigs sets configurations of a topic, as
// kafka-configs.sh --alter --add-config does.
type AlterConfigs struct {
	Topic   string
	Configs map[string]string
}

// Kind implements Action.
func (AlterConfigs) Kind() string { return "alter-configs" }

// Facts implements Action.
func (AlterConfigs) Facts() []Fact { return []Fact{FactConfigs} }

// Names implements Action.
func (a AlterConfigs) Names() []string { return []string{a.Topic} }

// TopicNames implements Action.
func (a AlterConfigs) TopicNames() []string { return []string{a.Topic} }

// Icon implements Action.
func (AlterConfigs) Icon() string { return live.EventInfo }

func (a AlterConfigs) run(sc *stepContext) (*observation, error) {
	topic := sc.name(a.Topic)
	obs := newObservation(topic, 0)
	if err := sc.lab.AlterTopicConfigs(sc, topic, a.Configs); err != nil {
		return obs, err
	}
	var set []string
	for _, k := range slices.Sorted(maps.Keys(a.Configs)) {
		set = append(set, k+"="+a.Configs[k])
	}
	obs.tool("Completed updating config for topic %s.", topic)
	obs.set(FactConfigs, strings.Join(set, ", "))
	return obs, nil
}
