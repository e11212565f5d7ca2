package replay

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestResultDurationIsSecondsInJSON(t *testing.T) {
	b, err := json.Marshal(Result{Verdict: "reproduced", Duration: 1500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"duration_seconds":1.5`) || strings.Contains(string(b), "000000") {
		t.Errorf("JSON %s", b)
	}
	var back Result
	if err := json.Unmarshal(b, &back); err != nil || back.Duration != 1500*time.Millisecond || back.Verdict != "reproduced" {
		t.Errorf("round trip %+v (%v)", back, err)
	}
}
