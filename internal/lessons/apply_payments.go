package lessons

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/offsetlab/offsetlab/internal/inspect"
	"github.com/offsetlab/offsetlab/internal/live"
)

// ApplyPayments is a consumer's business logic over the payment events of
// Topic ("PAY-1 O-1 10000": event id, order id, amount), delivered twice as
// at-least-once delivers them when a consumer dies before committing: a
// read_committed consumer reads the partition from the start, the process
// dies, the restarted one reads it again. Effect is what each delivery
// does: EffectUpsert, EffectDecrement or EffectDedupe. The account, the
// orders' statuses and the processed-id store stand in for the
// application's database and Redis: they survive the crash, as persistent
// stores do (an in-memory set would not).
type ApplyPayments struct {
	Topic  string
	Effect string
}

// The effects ApplyPayments can apply (seed 003's examples).
const (
	// EffectUpsert sets the order's status: UPDATE orders SET
	// status = 'PAID' WHERE order_id = ?. A replay changes nothing.
	EffectUpsert = "upsert-status"
	// EffectDecrement charges the account: UPDATE accounts SET
	// balance = balance - ?. A replay charges again.
	EffectDecrement = "decrement-balance"
	// EffectDedupe charges the account unless the event id is in a
	// persistent processed-id store, then records it.
	EffectDedupe = "decrement-with-processed-ids"
)

// StartingBalance is the account's balance before each ApplyPayments.
const StartingBalance = 100000

// Kind implements Action.
func (ApplyPayments) Kind() string { return "apply-payments" }

// Facts implements Action.
func (ApplyPayments) Facts() []Fact {
	return []Fact{FactDeliveries, FactSkipped, FactBalance, FactStatus}
}

// Names implements Action.
func (a ApplyPayments) Names() []string { return []string{a.Topic} }

// TopicNames implements Action.
func (a ApplyPayments) TopicNames() []string { return []string{a.Topic} }

// Icon implements Action.
func (ApplyPayments) Icon() string { return live.EventInfo }

func (a ApplyPayments) run(sc *stepContext) (*observation, error) {
	topic := sc.name(a.Topic)
	obs := newObservation(topic, 0)
	balance := int64(StartingBalance)
	status := map[string]string{}
	processed := map[string]bool{} // the persistent store: it survives the crash
	deliveries, skipped := 0, 0
	obs.tool("%-8s %-9s %-7s %s", "EVENT", "DELIVERY", "ORDER", "EFFECT")
	for pass := 1; pass <= 2; pass++ {
		recs, err := sc.lab.Records(sc, topic, 0, inspect.ReadCommitted, 0, inspect.MaxLimit)
		if err != nil {
			return obs, err
		}
		for _, r := range recs {
			f := strings.Fields(str(r.Value))
			if len(f) != 3 {
				continue
			}
			event, order := f[0], f[1]
			amount, err := strconv.ParseInt(f[2], 10, 64)
			if err != nil {
				continue
			}
			deliveries++
			var effect string
			switch a.Effect {
			case EffectUpsert:
				status[order] = "PAID"
				effect = "status = PAID"
			case EffectDecrement:
				effect = fmt.Sprintf("balance %d → %d", balance, balance-amount)
				balance -= amount
			case EffectDedupe:
				if processed[event] {
					skipped++
					effect = "already processed: skipped"
				} else {
					effect = fmt.Sprintf("balance %d → %d", balance, balance-amount)
					balance -= amount
					processed[event] = true
				}
			default:
				return obs, fmt.Errorf("unknown effect %q", a.Effect)
			}
			obs.tool("%-8s %-9s %-7s %s", event, []string{"", "1st", "2nd"}[pass], order, effect)
		}
		if pass == 1 {
			obs.say("consumerRestarts")
		}
	}
	if a.Effect == EffectUpsert {
		for _, o := range slices.Sorted(maps.Keys(status)) {
			obs.tool("order %s: status %s", o, status[o])
		}
	} else {
		obs.tool("account balance: %d (started at %d)", balance, StartingBalance)
	}
	obs.set(FactDeliveries, strconv.Itoa(deliveries))
	obs.set(FactSkipped, strconv.Itoa(skipped))
	obs.set(FactBalance, strconv.FormatInt(balance, 10))
	for _, o := range sc.args(FactStatus) {
		obs.setArg(FactStatus, o, cmp.Or(status[o], "none"))
	}
	return obs, nil
}
