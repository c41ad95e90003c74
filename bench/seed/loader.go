package main

import (
	"context"
	"database/sql"
	"strings"
)

// loader inserts rows many to a statement and many statements to a
// transaction: the cost per row is then the row's.
type loader struct {
	db     *sql.DB
	ctx    context.Context
	prefix string
	cols   int
	args   []any
	tx     *sql.Tx
	inTx   int
	err    error
}

const rowsPerInsert = 500

func (l *loader) begin(prefix string, cols int) {
	l.prefix, l.cols, l.args = prefix, cols, l.args[:0]
}

func (l *loader) row(vals ...any) {
	if l.err != nil {
		return
	}
	l.args = append(l.args, vals...)
	if len(l.args) == rowsPerInsert*l.cols {
		l.flush()
	}
}

func (l *loader) flush() {
	if l.err != nil || len(l.args) == 0 {
		return
	}
	if l.tx == nil {
		if l.tx, l.err = l.db.BeginTx(l.ctx, nil); l.err != nil {
			return
		}
	}
	n := len(l.args) / l.cols
	one := "(" + strings.TrimSuffix(strings.Repeat("?,", l.cols), ",") + ")"
	stmt := l.prefix + strings.TrimSuffix(strings.Repeat(one+",", n), ",")
	if _, l.err = l.tx.ExecContext(l.ctx, stmt, l.args...); l.err != nil {
		return
	}
	l.args = l.args[:0]
	if l.inTx += n; l.inTx >= 200_000 {
		l.err = l.tx.Commit()
		l.tx, l.inTx = nil, 0
	}
}

func (l *loader) end() error {
	l.flush()
	if l.err == nil && l.tx != nil {
		l.err = l.tx.Commit()
		l.tx, l.inTx = nil, 0
	}
	return l.err
}
