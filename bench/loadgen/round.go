package main

import (
	"context"
	"fmt"
	"time"
)

// A round is one pass over the phases -phases names, of the -repeat the
// session runs: the rows of its table, its ratios and its latency checks.
type round struct {
	seed    uint64
	results []*Result
	ratios  []Ratio
	checks  []LatencyCheck
	// svc's closed-loop phases, whose highest rates the half phases take a
	// share of.
	svcCollect, svcProof *Result
}

// The targets of svc's closed-loop rates, as shares of the same run's
// baselines and of svc's own single-event collect.
const (
	// Of the durable baseline: the most a server that answers after an
	// fsync can do on this disk and these cores.
	collectTarget = 0.90
	proofTarget   = 0.85
	// Events a second in batches, as a multiple of single-event collect.
	batchTarget = 10
)

// runRound runs round i and prints its table, ratios and checks.
func (s *session) runRound(ctx context.Context, i int) error {
	r := &round{seed: uint64(i) * 1_000_003}
	if err := s.closedLoop(ctx, r); err != nil {
		return err
	}
	if err := s.fixedRates(ctx, r); err != nil {
		return err
	}
	fmt.Fprintf(s.out, "run %d of %d\n", i+1, s.o.repeat)
	if err := WriteTable(s.out, r.results...); err != nil {
		return err
	}
	fmt.Fprintln(s.out)
	WriteRatios(s.out, r.ratios)
	WriteLatencyChecks(s.out, r.checks)
	fmt.Fprintln(s.out)
	return nil
}

// add runs one phase (see phase) and adds its result to the round's table.
func (s *session) add(ctx context.Context, r *round, name, url string, mix Mix, rate float64, seed uint64) (*Result, error) {
	res, err := s.phase(ctx, name, url, mix, rate, seed)
	if err != nil {
		return nil, err
	}
	r.results = append(r.results, res)
	return res, nil
}

// closedLoop runs the phases at the highest rate: svc's collect and proof
// (also for the half phases, which need their rates), each after its
// baselines when its own phase is asked for, batches after collect, then
// the full mix.
func (s *session) closedLoop(ctx context.Context, r *round) error {
	o := s.o
	if o.has("collect") || o.has("half") {
		if err := s.collect(ctx, r, !o.noBaseline && o.has("collect")); err != nil {
			return err
		}
	}
	if o.has("batch") {
		if err := s.batch(ctx, r); err != nil {
			return err
		}
	}
	if o.has("proof") || o.has("proof-signed") || o.has("half") {
		if err := s.proof(ctx, r, !o.noBaseline && (o.has("proof") || o.has("proof-signed"))); err != nil {
			return err
		}
	}
	if o.has("mix") {
		if _, err := s.add(ctx, r, "svc mix", o.target, FullMix, 0, r.seed+4); err != nil {
			return err
		}
	}
	return nil
}

// collect runs svc's collect phase, after both baselines' and with svc's
// share of each when withBaselines.
func (s *session) collect(ctx context.Context, r *round, withBaselines bool) error {
	var err error
	if !withBaselines {
		r.svcCollect, err = s.add(ctx, r, "svc collect", s.o.target, CollectMix, 0, r.seed+1)
		return err
	}
	b, err := s.add(ctx, r, "baseline collect", s.bases.base, CollectMix, 0, r.seed)
	if err != nil {
		return err
	}
	d, err := s.add(ctx, r, "durable baseline collect", s.bases.durable, CollectMix, 0, r.seed)
	if err != nil {
		return err
	}
	if r.svcCollect, err = s.add(ctx, r, "svc collect", s.o.target, CollectMix, 0, r.seed+1); err != nil {
		return err
	}
	share := Ratio{Name: "collect (views + purchases)", Svc: r.svcCollect.RPS(-1), Base: b.RPS(-1)}
	durable := Ratio{Name: share.Name, Svc: share.Svc, Base: d.RPS(-1), BaseName: "durable baseline", Target: collectTarget}
	s.sum.collectShares = append(s.sum.collectShares, share.Share())
	s.sum.durableShares = append(s.sum.durableShares, durable.Share())
	r.ratios = append(r.ratios, share, durable)
	return nil
}

// batch runs svc's batch phase, after the durable baseline's, and gives
// its events a second as a share of the durable baseline's and as a
// multiple of svc's single-event collect of the round, when there is one.
func (s *session) batch(ctx context.Context, r *round) error {
	perRequest := float64(s.cat.BatchEvents)
	name := fmt.Sprintf("batches of %d", s.cat.BatchEvents)
	var d *Result
	if !s.o.noBaseline {
		var err error
		if d, err = s.add(ctx, r, "durable baseline batch", s.bases.durable, BatchMix, 0, r.seed+11); err != nil {
			return err
		}
	}
	b, err := s.add(ctx, r, "svc batch", s.o.target, BatchMix, 0, r.seed+12)
	if err != nil {
		return err
	}
	events := b.RPS(Batch) * perRequest
	if d != nil {
		r.ratios = append(r.ratios, Ratio{Name: name, Svc: events, Base: d.RPS(Batch) * perRequest, BaseName: "the durable baseline's", Events: true})
	}
	if r.svcCollect != nil {
		f := Ratio{Name: name, Svc: events, Base: r.svcCollect.RPS(-1), BaseName: "svc's single-event collect", Target: batchTarget, Events: true}
		s.sum.batchFactors = append(s.sum.batchFactors, f.Share())
		r.ratios = append(r.ratios, f)
	}
	return nil
}

// proof runs svc's proof phase, after the read baseline's and with svc's
// share of it when withBaseline.
func (s *session) proof(ctx context.Context, r *round, withBaseline bool) error {
	var err error
	if !withBaseline {
		r.svcProof, err = s.add(ctx, r, "svc proof", s.o.target, ProofMix, 0, r.seed+3)
		return err
	}
	b, err := s.add(ctx, r, "baseline read", s.bases.base, ProofMix, 0, r.seed+2)
	if err != nil {
		return err
	}
	if r.svcProof, err = s.add(ctx, r, "svc proof", s.o.target, ProofMix, 0, r.seed+3); err != nil {
		return err
	}
	share := Ratio{Name: "proof", Svc: r.svcProof.RPS(-1), Base: b.RPS(-1), Target: proofTarget}
	s.sum.proofShares = append(s.sum.proofShares, share.Share())
	r.ratios = append(r.ratios, share)
	if s.o.has("proof-signed") {
		// Measured, with no target: what a reader who checks pays.
		signed, err := s.add(ctx, r, "svc proof, signed", s.o.target, SignedProofMix, 0, r.seed+4)
		if err != nil {
			return err
		}
		share := Ratio{Name: "proof, signed", Svc: signed.RPS(-1), Base: b.RPS(-1)}
		s.sum.signedProofShares = append(s.sum.signedProofShares, share.Share())
		r.ratios = append(r.ratios, share)
	}
	return nil
}

// fixedRates runs the open-loop phases: collect and proof at -half-of
// svc's highest rates of this round, collect at -collect-rate and proof at
// -proof-rate.
func (s *session) fixedRates(ctx context.Context, r *round) error {
	o := s.o
	if o.has("half") {
		at := pct(o.halfOf) + " of its highest rate"
		c, err := s.fixed(ctx, r, "collect", at, CollectMix, o.halfOf*r.svcCollect.RPS(-1), 10*time.Millisecond, r.seed+5)
		if err != nil {
			return err
		}
		p, err := s.fixed(ctx, r, "proof", at, ProofMix, o.halfOf*r.svcProof.RPS(-1), 2*time.Millisecond, r.seed+7)
		if err != nil {
			return err
		}
		r.checks = append(r.checks, c, p)
		s.sum.addHalf(c, p)
	}
	if o.has("collect-rate") {
		c, err := s.fixed(ctx, r, "collect", thousands(o.collectRate)+"/s", CollectMix, o.collectRate, 10*time.Millisecond, r.seed+10)
		if err != nil {
			return err
		}
		r.checks = append(r.checks, c)
		s.sum.addCollectRate(c)
	}
	if o.has("proof-rate") {
		res, err := s.add(ctx, r, fmt.Sprintf("svc proof @%s/s", thousands(o.proofRate)), o.target, ProofMix, o.proofRate, r.seed+9)
		if err != nil {
			return err
		}
		s.sum.proofRateP99 = append(s.sum.proofRateP99, float64(p99(res)))
	}
	return nil
}

// fixed sends mix at rate to svc, and before that to the baselines (the
// durable one only for writes), so that the check tells the machine's
// share of the latency, and the disk's, from svc's.
func (s *session) fixed(ctx context.Context, r *round, name, at string, mix Mix, rate float64, ceiling time.Duration, seed uint64) (LatencyCheck, error) {
	c := LatencyCheck{Name: name + " at " + at, Rate: rate, Ceiling: ceiling}
	if !s.o.noBaseline {
		b, err := s.add(ctx, r, "baseline "+name+" @"+at, s.bases.base, mix, rate, seed)
		if err != nil {
			return c, err
		}
		c.BaseP99 = p99(b)
		if mix.Writes() {
			d, err := s.add(ctx, r, "durable baseline "+name+" @"+at, s.bases.durable, mix, rate, seed)
			if err != nil {
				return c, err
			}
			c.DurableP99 = p99(d)
		}
	}
	res, err := s.add(ctx, r, "svc "+name+" @"+at, s.o.target, mix, rate, seed+1)
	if err != nil {
		return c, err
	}
	t := res.Total()
	c.P99, c.Errors, c.Requests, c.Server, c.Stolen = t.Latency.ValueAtQuantile(99), t.Errors, t.Count, res.Server, res.Stolen
	return c, nil
}

// p99 is the 99th percentile of every request of r, in microseconds.
func p99(r *Result) int64 { return r.Total().Latency.ValueAtQuantile(99) }
