package e2e

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/offsetlab/offsetlab/web"
)

// TestBrowserClassroomBrokerBanner: in classroom mode the broker going away
// shows the banner on a student's page too, and the page recovers by
// itself when the broker is back (as TestBrowserBrokerBanner checks for
// the teacher's page). The test owns the broker: an embedded one that
// Offset Lab reaches as an external cluster, stopped and restarted at the
// same address.
func TestBrowserClassroomBrokerBanner(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	outage, kafka := newOutageBroker(t)
	c := startClassroomOn(t, web.Access{Classroom: true}, kafka)
	teacher := c.teacher()
	topic := c.name("banner")
	teacher.mustPost("/api/topics", fmt.Sprintf(`{"name":%q,"partitions":1}`, topic), http.StatusCreated)
	teacher.mustPost("/api/produce", fmt.Sprintf(`{"topic":%q,"values":["before the outage"]}`, topic), http.StatusOK)

	student := openPage(t, c.app, chromium, 1280, 720)
	student.open("/topics/" + topic + "/partitions/0")
	student.wait("the log on the student's page", `cell(0)?.dataset.kind === 'data' && byTestID('broker-banner').hidden && document.getElementById('app').dataset.role === 'student'`, 15*time.Second)

	outage.stop()
	student.wait("the unreachable banner on the student's page", `!byTestID('broker-banner').hidden`, 20*time.Second)

	outage.start()
	student.wait("the banner to clear by itself", `byTestID('broker-banner').hidden`, 30*time.Second)
	teacher.mustPost("/api/produce", fmt.Sprintf(`{"topic":%q,"values":["after the outage"]}`, topic), http.StatusOK)
	student.wait("the student's stream to carry on", `cell(1)?.dataset.kind === 'data' && byTestID('stream-status').dataset.state === 'open'`, 20*time.Second)
}
