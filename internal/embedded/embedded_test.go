package embedded

import (
	"context"
	"testing"
	"time"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func startEmbedded(t *testing.T) *cluster.Cluster {
	t.Helper()
	c, err := Start(Config{KafkaAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// TestOffsetFetchUnknownGroup checks the compatibility shim: a group that
// never committed has no offsets (-1) and no error, as on Apache Kafka,
// for both the v7- (single group) and v8+ (many groups) request shapes.
func TestOffsetFetchUnknownGroup(t *testing.T) {
	t.Parallel()
	c := startEmbedded(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.CreateTopic(ctx, cluster.TopicSpec{Name: "orders", Partitions: 1}); err != nil {
		t.Fatal(err)
	}
	for _, version := range []int16{5, 7, 8, 9} {
		req := kmsg.NewPtrOffsetFetchRequest()
		req.SetVersion(version)
		if version <= 7 {
			req.Group = "never-committed"
			rt := kmsg.NewOffsetFetchRequestTopic()
			rt.Topic, rt.Partitions = "orders", []int32{0}
			req.Topics = append(req.Topics, rt)
		} else {
			rg := kmsg.NewOffsetFetchRequestGroup()
			rg.Group = "never-committed"
			rt := kmsg.NewOffsetFetchRequestGroupTopic()
			rt.Topic, rt.Partitions = "orders", []int32{0}
			rg.Topics = append(rg.Topics, rt)
			req.Groups = append(req.Groups, rg)
		}
		resp, err := c.Client().Request(ctx, req)
		if err != nil {
			t.Fatalf("v%d: %v", version, err)
		}
		r := resp.(*kmsg.OffsetFetchResponse)
		var code int16
		var offset int64 = 99
		if version <= 7 {
			code = r.ErrorCode
			if len(r.Topics) == 1 && len(r.Topics[0].Partitions) == 1 {
				offset = r.Topics[0].Partitions[0].Offset
			}
		} else {
			code = r.Groups[0].ErrorCode
			if len(r.Groups[0].Topics) == 1 && len(r.Groups[0].Topics[0].Partitions) == 1 {
				offset = r.Groups[0].Topics[0].Partitions[0].Offset
			}
		}
		if err := kerr.ErrorForCode(code); err != nil || offset != -1 {
			t.Errorf("v%d: error %v, offset %d; want no error and offset -1", version, err, offset)
		}
	}
}
