package lessons

import (
	"strings"

	"github.com/offsetlab/offsetlab/internal/live"
)

// SetGroupConfigs sets configs of a group, in order, as kafka-configs.sh
// --entity-type groups --alter --add-config does; each is "name=value".
type SetGroupConfigs struct {
	Group   string
	Configs []string
}

// Kind implements Action.
func (SetGroupConfigs) Kind() string { return "group-configs" }

// Facts implements Action: the configs set, "name=value, ...".
func (SetGroupConfigs) Facts() []Fact { return []Fact{FactConfigs} }

// Names implements Action.
func (a SetGroupConfigs) Names() []string { return []string{a.Group} }

// TopicNames implements Action.
func (SetGroupConfigs) TopicNames() []string { return nil }

// Icon implements Action.
func (SetGroupConfigs) Icon() string { return live.EventInfo }

func (a SetGroupConfigs) run(sc *stepContext) (*observation, error) {
	group := sc.name(a.Group)
	obs := newObservation("", 0)
	for _, c := range a.Configs {
		key, value, _ := strings.Cut(c, "=")
		if err := sc.lab.SetGroupConfig(sc, group, key, value); err != nil {
			return obs, err
		}
	}
	obs.tool("Completed updating config for group %s.", group)
	obs.set(FactConfigs, strings.Join(a.Configs, ", "))
	return obs, nil
}
