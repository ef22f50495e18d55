package kfake

import (
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Offset Lab patch (see PATCHES.md): producer ids expire and are capped
// per user. Upstream kfake keeps every idempotent producer id an
// InitProducerID ever made, with its state and its line of pids.log, for
// as long as the cluster lives (only transactional ids expire, after
// transactional.id.expiration.ms): a client looping on InitProducerID
// grows both without bound.
//
// As Kafka removes a producer's state once it has been idle for
// producer.id.expiration.ms (default one day; checked every
// producer.id.expiration.check.interval.ms, default ten minutes), an
// idempotent producer id with no open transaction that has neither been
// initialised nor produced with for that long is forgotten here, and
// with it its sequence windows (DescribeProducers no longer lists it).
// Expired ids leave pids.log at its next compaction
// (state.log.compact.bytes). A producer that writes again after its id
// expired is accepted as a new producer, as Kafka 2.5+ does (KIP-360).

// ProducerIDLimit caps the producer ids, idempotent or transactional,
// that one SASL user (or, without SASL, everyone together as the
// anonymous user) holds at once; superusers have no cap. An
// InitProducerID that would make a new one past the cap is answered
// THROTTLING_QUOTA_EXCEEDED, as Kafka's producer id quota (KIP-936)
// answers, with the time until the user's oldest id expires (at most
// maxProducerIDThrottle) as its throttle time; clients wait and retry.
// Re-initialising a transactional id the user holds is never refused.
// Zero or negative leaves it uncapped.
func ProducerIDLimit(perUser int) Opt {
	return opt{func(cfg *cfg) { cfg.maxProducerIDsPerUser = perUser }}
}

const (
	defProducerIDExpirationMs      = 86400000 // 1 day, Kafka's default
	defProducerIDExpirationCheckMs = 600000   // 10 minutes, Kafka's default

	// maxProducerIDThrottle bounds the throttle time of a refused
	// InitProducerID, so that a client asks again within a minute
	// rather than sleeping until an id expires hours later.
	maxProducerIDThrottle = time.Minute
)

func (c *Cluster) producerIDExpiration() time.Duration {
	return time.Duration(c.brokerConfigInt("producer.id.expiration.ms", defProducerIDExpirationMs)) * time.Millisecond
}

func (c *Cluster) producerIDExpirationCheck() time.Duration {
	return time.Duration(c.brokerConfigInt("producer.id.expiration.check.interval.ms", defProducerIDExpirationCheckMs)) * time.Millisecond
}

// put lists pidinf under its id, replacing (and uncounting) whatever was
// listed there, and counts it against its user.
func (pids *pids) put(pidinf *pidinfo) {
	if old := pids.ids[pidinf.id]; old != nil {
		pids.uncount(old)
	}
	pids.ids[pidinf.id] = pidinf
	if pids.byUser == nil {
		pids.byUser = make(map[string]int)
	}
	pids.byUser[pidinf.user]++
	if pidinf.txid == "" && pids.nextSweep.IsZero() {
		pids.nextSweep = time.Now().Add(pids.c.producerIDExpirationCheck())
	}
}

// forget removes pidinf: its id, its transactional id and its count.
func (pids *pids) forget(pidinf *pidinfo) {
	if pids.ids[pidinf.id] == pidinf {
		delete(pids.ids, pidinf.id)
		pids.uncount(pidinf)
	}
	if pidinf.txid != "" && pids.byTxid[pidinf.txid] == pidinf {
		delete(pids.byTxid, pidinf.txid)
	}
}

func (pids *pids) uncount(pidinf *pidinfo) {
	if pids.byUser[pidinf.user]--; pids.byUser[pidinf.user] <= 0 {
		delete(pids.byUser, pidinf.user)
	}
}

// sweepDue runs the producer id expiration check if it is due and
// returns how many ids it forgot.
func (pids *pids) sweepDue(now time.Time) int {
	if pids.nextSweep.IsZero() || now.Before(pids.nextSweep) {
		return 0
	}
	pids.nextSweep = time.Time{}
	idle := pids.c.producerIDExpiration()
	left, forgot := false, 0
	for _, pidinf := range pids.ids {
		if pidinf.txid != "" {
			continue // transactional.id.expiration.ms (expireTransactionalIDs)
		}
		if !pidinf.inTx && now.Sub(pidinf.lastActive) >= idle {
			pids.forget(pidinf)
			forgot++
			continue
		}
		left = true
	}
	if left {
		pids.nextSweep = now.Add(pids.c.producerIDExpirationCheck())
	}
	return forgot
}

// producerIDRefusal answers an InitProducerID of user that would make a
// new producer id past ProducerIDLimit; false when it may.
func (pids *pids) producerIDRefusal(creq *clientReq, resp *kmsg.InitProducerIDResponse) bool {
	limit, user := pids.c.cfg.maxProducerIDsPerUser, creq.cc.user
	if limit <= 0 || pids.byUser[user] < limit || pids.c.isSuperuser(user) {
		return false
	}
	// The user's oldest id expires first; a throttle time until then
	// (at most a minute) tells the client when to ask again.
	now := time.Now()
	wait := maxProducerIDThrottle
	for _, pidinf := range pids.ids {
		if pidinf.user != user {
			continue
		}
		idle := pids.c.producerIDExpiration()
		if pidinf.txid != "" {
			idle = time.Duration(pids.c.txnIDExpirationMs()) * time.Millisecond
		}
		if d := pidinf.lastActive.Add(idle).Sub(now); d < wait {
			wait = d
		}
	}
	pids.c.cfg.logger.Logf(LogLevelWarn, "InitProducerID: user %q holds %d producer ids (ProducerIDLimit %d): throttled", user, pids.byUser[user], limit)
	resp.ErrorCode = kerr.ThrottlingQuotaExceeded.Code
	resp.ThrottleMillis = int32(max(wait, time.Second).Milliseconds())
	resp.ProducerID, resp.ProducerEpoch = -1, -1
	return true
}

// ProducerIDs returns how many producer ids each SASL user holds ("" the
// clients without SASL), as ProducerIDLimit counts them.
func (c *Cluster) ProducerIDs() map[string]int {
	out := make(map[string]int)
	c.admin(func() {
		for user, n := range c.pids.byUser {
			out[user] = n
		}
	})
	return out
}
