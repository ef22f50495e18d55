package pages

import (
	"testing"

	"github.com/offsetlab/offsetlab/internal/catalog"
	"github.com/offsetlab/offsetlab/internal/cluster"
)

// TestHeldWhy: the group page's sentence for a partition held by an open
// transaction, in both languages, named or not.
func TestHeldWhy(t *testing.T) {
	t.Parallel()
	named := &cluster.LSOHold{Topic: "refunds", LastStableOffset: 300, HighWatermark: 351, Held: true, Waiting: 50, WaitingComplete: true,
		Holder: &cluster.LSOHolder{TransactionalID: "refund-worker-7", ProducerID: 2, StartOffset: 300, State: "Ongoing", AgeMs: 130_400, TimeoutMs: 60_000}}
	hanging := &cluster.LSOHold{Topic: "refunds", LastStableOffset: 300, HighWatermark: 351, Held: true, Waiting: 50,
		Holder: &cluster.LSOHolder{ProducerID: 2, StartOffset: 300, AgeMs: 7_200_000}}
	started := &cluster.LSOHold{Topic: "refunds", LastStableOffset: 300, HighWatermark: 351, Held: true, Waiting: 50, WaitingComplete: true,
		Holder: &cluster.LSOHolder{TransactionalID: "refund-worker-7", ProducerID: 2, StartOffset: 300, State: "Ongoing", AgeMs: 130_400, TimeoutMs: 60_000, StartTimestamp: 1_796_616_848_207}}
	tests := []struct {
		name string
		hold *cluster.LSOHold
		lang catalog.Lang
		want string
	}{
		{"named", named, catalog.English, "Record lag 0 now, 50 waiting behind the open transaction at 300 (refund-worker-7): a read_committed consumer receives them once it commits or aborts (open for 2 min 10 s of its 60 s timeout)."},
		{"named, Korean", named, catalog.Korean, "지금 레코드 랙 0, 오프셋 300의 열린 트랜잭션인 refund-worker-7 뒤에서 50개가 기다려요. read_committed 컨슈머는 그 트랜잭션이 커밋되거나 중단되면 받아요(열린 지 2분 10초, 제한 시간 60초)."},
		{"named, with its start", started, catalog.English, "Record lag 0 now, 50 waiting behind the open transaction at 300 (refund-worker-7): a read_committed consumer receives them once it commits or aborts (opened 2026-12-07 04:14:08 UTC, open for 2 min 10 s of its 60 s timeout)."},
		{"named, with its start, Korean", started, catalog.Korean, "지금 레코드 랙 0, 오프셋 300의 열린 트랜잭션인 refund-worker-7 뒤에서 50개가 기다려요. read_committed 컨슈머는 그 트랜잭션이 커밋되거나 중단되면 받아요(2026-12-07 04:14:08 UTC에 열림, 열린 지 2분 10초, 제한 시간 60초)."},
		{"hanging, counted in part", hanging, catalog.English, "Record lag 0 now, ≥ 50 waiting behind the open transaction at 300: a read_committed consumer receives them once it commits or aborts (open for 2 h 0 min)."},
	}
	for _, tt := range tests {
		if got := heldWhy(0, tt.hold).In(tt.lang); got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
	if got := heldTransactionPath(named); got != "/transactions?topic=refunds" {
		t.Errorf("heldTransactionPath = %q", got)
	}
	if got := heldCellsPath(named); got != "/topics/refunds/partitions/0?at=300&sel=300" {
		t.Errorf("heldCellsPath = %q", got)
	}
}
