package e2e

import (
	"strings"
	"testing"
	"time"
)

// TestBrowserBrokerBanner stops the broker under an open page and starts it
// again: the page must show the "broker unreachable" banner, then clear it
// and stream the log again without a reload. The test owns the broker (an
// embedded one that Offset Lab reaches as an external cluster, so it can be
// stopped and restarted at the same address); it does not run on the shared
// real Kafka, which it must not stop.
func TestBrowserBrokerBanner(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	outage, kafka := newOutageBroker(t)
	a := startAppOn(t, realKafka, kafka)
	topic := a.name("banner")
	a.createTopic(topic)
	a.do("POST", "/api/produce", map[string]any{"topic": topic, "values": []string{"before the outage"}}, 200, nil)

	p := openPage(t, a, chromium, 1280, 720)
	p.open("/topics/" + topic + "/partitions/0")
	p.wait("the log", `cell(0)?.dataset.kind === 'data' && byTestID('broker-banner').hidden`, 15*time.Second)

	outage.stop()
	p.wait("the unreachable banner", `!byTestID('broker-banner').hidden`, 20*time.Second)
	if got := p.text("broker-banner"); !strings.Contains(got, "Kafka broker unreachable") || !strings.Contains(got, "recovers by itself") {
		t.Fatalf("banner reads %q", got)
	}

	outage.start()
	p.wait("the banner to clear by itself", `byTestID('broker-banner').hidden`, 30*time.Second)
	a.do("POST", "/api/produce", map[string]any{"topic": topic, "values": []string{"after the outage"}}, 200, nil)
	p.wait("the stream to carry on", `cell(1)?.dataset.kind === 'data' && byTestID('stream-status').dataset.state === 'open'`, 20*time.Second)
}
