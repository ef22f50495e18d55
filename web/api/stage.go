package api

import (
	"context"
	"net/http"
	"strconv"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/problem"
	"github.com/offsetlab/offsetlab/web/httpx"
)

// StageLab finds the partition the teacher puts on the stage; *lab.Lab is
// one.
type StageLab interface {
	Topic(ctx context.Context, name string) (cluster.TopicInfo, error)
}

// stageRequest is POST /api/classroom/stage.
type stageRequest struct {
	Topic     string `json:"topic"`
	Partition *int32 `json:"partition"`
}

// SetStage is POST /api/classroom/stage {"topic","partition"} (the
// teacher's: the router lets only the teacher write): it makes that
// partition the stage — the teacher's partition, which the students'
// pages follow — as opening it on the teacher's own page does. The
// scoreboard puts a student's log on the stage this way, before the
// teacher's page has opened it. The partition must exist: 404 with
// error.unknownTopic or error.unknownPartition otherwise, so that no
// student's page is sent to a log nobody can show.
func (s *Server) SetStage(w http.ResponseWriter, r *http.Request) {
	var req stageRequest
	if err := httpx.DecodeJSON(r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	partition := int32(0)
	if req.Partition != nil {
		partition = *req.Partition
	}
	switch {
	case req.Topic == "":
		s.writeError(w, r, problem.New(problem.Invalid, "error.topicNameRequired"))
		return
	case partition < 0:
		s.writeError(w, r, problem.New(problem.Invalid, "error.partitionNegative"))
		return
	}
	info, err := s.deps.Stage.Topic(r.Context(), req.Topic)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if int(partition) >= len(info.Partitions) {
		s.writeError(w, r, problem.New(problem.NotFound, "error.unknownPartition",
			"topic", req.Topic, "count", strconv.Itoa(len(info.Partitions)), "partition", strconv.Itoa(int(partition))))
		return
	}
	ref := &partitionRef{Topic: req.Topic, Partition: partition}
	s.stage(ref)
	if s.deps.Exercises != nil {
		s.keepClass(r)
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"teacherPartition": ref})
}
