// Package live streams partitions to many viewers: for each partition that
// someone watches, one feed polls the broker through the inspector (it
// imports inspect because it streams inspect's offset model, and cluster
// for the consumer groups' committed offsets it streams beside it), works out
// what changed — new offsets, open transactional records that became
// committed or aborted, pointer moves, consumer groups' committed offsets —
// narrates it as catalogue sentences (internal/catalog), and publishes it
// to the feed's subscribers.
//
// Publishing never blocks: each subscriber has a bounded buffer, and a
// subscriber whose buffer is full is dropped (Lagged reports it) so that it
// can resubscribe and start again from a fresh snapshot. A slow or dead
// viewer therefore never slows the feed, the producers or other viewers.
// Nothing here knows HTTP; web turns subscriptions into websockets.
package live
