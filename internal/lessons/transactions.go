package lessons

import (
	"context"
	"time"

	"github.com/offsetlab/offsetlab/internal/wait"
)

// settleWait bounds how long settle waits for a coordinator's markers.
const settleWait = 30 * time.Second

// settle waits until the coordinator of id has written the markers of its
// last EndTxn: Kafka answers EndTxn at PrepareCommit and writes the
// markers just after. It gives up quietly; the check that follows reports
// what the coordinator says.
func settle(sc *stepContext, id string) {
	ctx, cancel := context.WithTimeout(sc, settleWait)
	defer cancel()
	_ = wait.Until(ctx, 50*time.Millisecond, func(ctx context.Context) (bool, error) {
		t, err := sc.lab.Transaction(ctx, id)
		return err != nil || !t.State.Preparing(), nil
	})
}
