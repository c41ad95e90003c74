package postgres

import (
	"github.com/jackc/pgx/v5"

	"github.com/svc-project/svc"
)

// cartColumns gathers a batch's add-to-carts for one set-based insert.
type cartColumns struct {
	event                    []string
	product, ts, received    []int64
	given                    []*int64
	session, country, locale []*string
	keyed                    []bool
	quantity                 []int64
	arm                      []string
}

func (c *cartColumns) add(e *svc.CartEvent, ref svc.ProductRef) {
	m := &e.Meta
	c.event, c.product, c.ts = append(c.event, m.EventID), append(c.product, int64(ref)), append(c.ts, millis(m.Time))
	c.given, c.received = append(c.given, optMillis(m.GivenTime)), append(c.received, millis(m.ReceivedAt))
	c.session, c.country, c.locale = append(c.session, e.Context.SessionID), append(c.country, e.Context.Country), append(c.locale, e.Context.Locale)
	c.keyed, c.quantity = append(c.keyed, m.Keyed), append(c.quantity, e.Units())
	c.arm = append(c.arm, m.Arm)
}

func (c *cartColumns) queue(q *pgx.Batch) {
	if len(c.event) == 0 {
		return
	}
	q.Queue(`INSERT INTO cart_events (event_id, product, ts, given_ts, received_at, session_id, country, locale, keyed, quantity, arm)
		SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[], $6::text[], $7::text[], $8::text[], $9::bool[], $10::bigint[], $11::text[])`,
		c.event, c.product, c.ts, c.given, c.received, c.session, c.country, c.locale, c.keyed, c.quantity, c.arm)
}
