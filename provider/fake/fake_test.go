package fake_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"
	"github.com/google/go-cmp/cmp"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/provider/fake"
)

func generate(t *testing.T, p *fake.Provider, spec atesor.ModelSpec, text string) (*schema.Message, error) {
	t.Helper()
	m, err := p.ChatModel(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	return m.Generate(context.Background(), []*schema.Message{schema.UserMessage(text)})
}

func TestQueuesAndRecords(t *testing.T) {
	p := fake.New(fake.WithPool(atesor.RoleScout, "m1", "m2"), fake.WithMaxTokens(100))
	p.Queue(atesor.RoleScout, "first", "second")
	p.QueueModel("m2", fake.Reply{Text: "for m2", Thinking: "hmm", InputTokens: 3, OutputTokens: 4})
	pool := p.Pool(atesor.RoleScout)
	if len(pool) != 2 || pool[1].Model != "m2" || pool[0].MaxTokens != 100 {
		t.Fatalf("pool %+v", pool)
	}
	var got []string
	for _, s := range []atesor.ModelSpec{pool[0], pool[1], pool[1]} {
		msg, err := generate(t, p, s, "q")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, msg.Content+"|"+msg.ReasoningContent)
	}
	if d := cmp.Diff([]string{"first|", "for m2|hmm", "second|"}, got); d != "" {
		t.Errorf("replies (-want +got):\n%s", d)
	}
	if n := len(p.Prompts(atesor.RoleScout)); n != 3 {
		t.Errorf("%d prompts recorded", n)
	}
	_, err := generate(t, p, pool[0], "q")
	if !errors.Is(err, fake.ErrNoReply) {
		t.Errorf("empty queue: %v", err)
	}
}

func TestHTTPErrorAndDelay(t *testing.T) {
	var slept []time.Duration
	p := fake.New(fake.WithSleeper(func(_ context.Context, d time.Duration) error { slept = append(slept, d); return nil }))
	p.QueueHTTPError(atesor.RolePlanner, 429, http.Header{"Retry-After": {"10"}}, "slow down")
	p.QueueReply(atesor.RolePlanner, fake.Reply{Text: "late", Delay: time.Minute})
	spec := p.Pool(atesor.RolePlanner)[0]
	_, err := generate(t, p, spec, "q")
	var pe *atesor.ProviderError
	if !errors.As(err, &pe) || pe.Status != 429 || pe.RetryAfter != 10*time.Second || pe.Model != spec.Model || pe.Provider != "fake" {
		t.Fatalf("err %v", err)
	}
	msg, err := generate(t, p, spec, "q")
	if err != nil || msg.Content != "late" || len(slept) != 1 || slept[0] != time.Minute {
		t.Fatalf("delay: %v %v %v", msg, err, slept)
	}
}

func TestHangEndsWithContext(t *testing.T) {
	p := fake.New()
	p.QueueReply(atesor.RoleFixer, fake.Reply{Hang: true})
	m, _ := p.ChatModel(context.Background(), p.Pool(atesor.RoleFixer)[0])
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.Generate(ctx, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
}

func ExampleProvider() {
	p := fake.New()
	p.Queue(atesor.RoleScout, `{"phases":[]}`)
	m, _ := p.ChatModel(context.Background(), p.Pool(atesor.RoleScout)[0])
	msg, _ := m.Generate(context.Background(), []*schema.Message{schema.UserMessage("plan the build")})
	fmt.Println(msg.Content)
	fmt.Println(p.Prompts(atesor.RoleScout)[0][0].Content)
	// Output:
	// {"phases":[]}
	// plan the build
}

func TestEndedCallTakesNoReply(t *testing.T) {
	p := fake.New()
	p.Queue(atesor.RoleFixer, "for the next call")
	m, _ := p.ChatModel(context.Background(), p.Pool(atesor.RoleFixer)[0])
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.Generate(ctx, []*schema.Message{schema.UserMessage("late")}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if p.Pending(atesor.RoleFixer) != 1 || len(p.Calls()) != 0 {
		t.Fatalf("an abandoned call took the reply: pending %d, calls %d", p.Pending(atesor.RoleFixer), len(p.Calls()))
	}
	msg, err := m.Generate(context.Background(), []*schema.Message{schema.UserMessage("next")})
	if err != nil || msg.Content != "for the next call" {
		t.Fatalf("%v %v", msg, err)
	}
}

func TestWaitCalls(t *testing.T) {
	p := fake.New()
	p.Queue(atesor.RoleScout, "a", "b")
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.WaitCalls(2)
	}()
	for _, s := range []string{"1", "2"} {
		if _, err := generate(t, p, p.Pool(atesor.RoleScout)[0], s); err != nil {
			t.Fatal(err)
		}
	}
	<-done
	if n := len(p.Calls()); n != 2 {
		t.Errorf("%d calls", n)
	}
}
