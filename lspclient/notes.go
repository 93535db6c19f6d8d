package lspclient

import (
	"context"
	"sync"
)

// The notifications the client sends gopls on its own account — documents
// opened, changed and closed, files changed on disk, what [Client.Notify]
// is given — go through one ordered queue, which one goroutine writes to
// the running gopls. They are queued under the lock of the state they
// report, so that the queue's order is the order of the changes, and
// written with no lock of the client held: a gopls that stops reading its
// input holds up the requests that follow them (which it could not answer
// anyway), never [Client.Hold], [Lease.Release] or a barrier.
//
// Every request waits until the notifications queued before it are
// written (see flush), so that gopls reads them first; gopls applies
// notifications in the order it reads them, before the requests that
// follow.
//
// A new gopls starts from the client's state, not from the notifications:
// when one starts, the queue is replaced by the documents to open in it
// (see launch), and notifications queued for the gopls it replaces, which
// are part of that state, are dropped.

// A note is one notification waiting to be written.
type note struct {
	method string
	params any
}

type noteQueue struct {
	mu sync.Mutex
	// p is the gopls the queued notes are for: the last one launched.
	p     *process
	notes []note
	// queued counts the notes ever queued; the first written of them are
	// written, or moot (they were for a gopls that has been replaced).
	queued, written uint64
	// moved is closed, and replaced, when written moves.
	moved chan struct{}
	// wake tells the writer there is something to write.
	wake chan struct{}
}

func (q *noteQueue) init() {
	q.moved = make(chan struct{})
	q.wake = make(chan struct{}, 1)
}

// enqueue queues a notification for the running gopls. The caller holds
// the lock of the state it reports, if any.
func (q *noteQueue) enqueue(method string, params any) {
	q.mu.Lock()
	q.notes = append(q.notes, note{method, params})
	q.queued++
	q.mu.Unlock()
	q.poke()
}

func (q *noteQueue) poke() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// reset makes p the gopls notifications are for, with first as the first
// notes it gets; notes queued before are moot. The caller holds docs.mu.
func (q *noteQueue) reset(p *process, first []note) {
	q.mu.Lock()
	q.p = p
	q.notes = first
	q.written = q.queued
	q.queued += uint64(len(first))
	close(q.moved)
	q.moved = make(chan struct{})
	q.mu.Unlock()
	q.poke()
}

// writeNotes is the goroutine that writes the queued notes, in order,
// until the client is closed. A note for a gopls that has failed is
// dropped: its replacement starts from the client's state.
func (c *Client) writeNotes() {
	q := &c.notes
	for {
		select {
		case <-q.wake:
		case <-c.life.Done():
			return
		}
		for {
			q.mu.Lock()
			batch, p, end := q.notes, q.p, q.queued
			q.notes = nil
			q.mu.Unlock()
			if len(batch) == 0 {
				break
			}
			for _, n := range batch {
				if p == nil || p.ctx.Err() != nil {
					break
				}
				if err := p.notify(n.method, n.params); err != nil {
					// A failed write has failed the process already
					// (see deadlineWriter); anything else is as bad.
					if p.ctx.Err() == nil {
						p.fail(err)
					}
					break
				}
			}
			q.mu.Lock()
			if end > q.written {
				q.written = end
				close(q.moved)
				q.moved = make(chan struct{})
			}
			q.mu.Unlock()
		}
	}
}

// flush waits until every notification queued before it was called has
// been written to gopls (or dropped with the gopls it was for).
func (c *Client) flush(ctx context.Context) error {
	q := &c.notes
	q.mu.Lock()
	target := q.queued
	for q.written < target {
		moved := q.moved
		q.mu.Unlock()
		select {
		case <-moved:
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-c.life.Done():
			return ErrClosed
		}
		q.mu.Lock()
	}
	q.mu.Unlock()
	return nil
}
