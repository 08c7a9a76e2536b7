package longrun

import (
	"testing"
	"time"
)

// Turn k is the time from call k-1's answer to call k's arrival; the
// first call (the prompt) is in neither tenth.
func TestTenths(t *testing.T) {
	t0 := time.Unix(0, 0)
	calls := make([]Times, 21)
	at := t0
	for k := range calls {
		harness := time.Duration(k) * time.Millisecond // turn k costs k ms
		if k == 2 {
			harness = 50 * time.Millisecond // one slow turn: moves the mean, not the median
		}
		at = at.Add(harness)
		calls[k] = Times{First: at, Arrived: at, Read: at.Add(time.Millisecond), FirstCPU: time.Duration(k) * 10 * time.Millisecond, Bytes: 100 * k}
		at = at.Add(2 * time.Millisecond)
		calls[k].Sent = at
		calls[k].SentCPU = calls[k].FirstCPU + time.Millisecond
	}
	first, last, err := Tenths(calls)
	if err != nil {
		t.Fatal(err)
	}
	// Turns 1-2 and 19-20.
	if first.Harness != (1+50)*time.Millisecond/2 || first.Median != 50*time.Millisecond || last.Harness != (19+20)*time.Millisecond/2 {
		t.Errorf("harness: first %v (median %v), last %v", first.Harness, first.Median, last.Harness)
	}
	if first.Transfer != time.Millisecond || first.CPU != 9*time.Millisecond || first.Bytes != 150 || last.Bytes != 1950 {
		t.Errorf("first tenth = %+v", first)
	}
	// A turn handed to the HTTP client ends there.
	for k := range calls {
		calls[k].Handed, calls[k].HandedCPU = calls[k].First.Add(-time.Millisecond), calls[k].FirstCPU-2*time.Millisecond
	}
	if first, _, _ := Tenths(calls); first.Harness != (1+50-2)*time.Millisecond/2 || first.CPU != 7*time.Millisecond || first.Transfer != 2*time.Millisecond {
		t.Errorf("handed over: first tenth = %+v", first)
	}
	if _, _, err := Tenths(calls[:10]); err == nil {
		t.Error("9 turns were split into tenths")
	}
}
