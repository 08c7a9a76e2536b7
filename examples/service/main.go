// Command service embeds harness9's HTTP service (package service: the
// API, its Server-Sent Events and the plan-review web page) in a Go
// program, with engines assembled like the CLI's (package harness). It
// serves on a local port, then acts as its own client: it creates a
// session in Plan Mode, follows its events, approves the plan over the
// API and waits for the execution to finish.
//
//	go run ./examples/service                       # offline, a scripted model, then exits
//	go run ./examples/service -serve 127.0.0.1:8787 # keep serving; open the printed URL
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/harness9/harness9/harness"
	"github.com/harness9/harness9/llm/scripted"
	"github.com/harness9/harness9/service"
	"github.com/harness9/harness9/session/memstore"
)

func main() {
	serve := flag.String("serve", "", "keep serving on this address instead of running the demonstration")
	flag.Parse()
	root, err := os.MkdirTemp("", "service-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(root)

	// session/sqlite or session/postgres keep sessions across restarts.
	store := memstore.New()
	// Each session's workdir gets its own assembled agent, as serve has it.
	engines := service.Assembled(script(), "", harness.WithStore(store))
	token, _ := service.NewToken()
	srv, err := service.New(service.NewEngineRunner(store, engines), store, []string{root},
		service.WithTokens(service.Token{Name: "example", SHA256: service.HashToken(token), Roots: []string{root}}))
	if err != nil {
		log.Fatal(err)
	}
	addr := *serve
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		log.Fatal(err)
	}
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
	base := "http://" + ln.Addr().String()
	fmt.Printf("serving  %s (sessions in %s)\n", base, root)
	if *serve != "" {
		fmt.Printf("token    %s\n", token)
		select {}
	}
	if err := demo(base, token, root); err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = srv.Shutdown(ctx) // cancels running turns; their state is saved
	_ = hs.Shutdown(ctx)
}

// demo is a client of the API: create, follow, approve, follow.
func demo(base, token, root string) error {
	c := client{base: base, token: token}
	var created struct {
		ID string `json:"id"`
	}
	if err := c.call("POST", "/api/sessions", map[string]string{
		"workdir": root, "mode": "plan", "prompt": "Write a NOTES.md with one line about this project."}, &created); err != nil {
		return err
	}
	fmt.Println("session ", created.ID)
	events, err := c.events(created.ID)
	if err != nil {
		return err
	}
	defer events.Close()
	lines := bufio.NewScanner(events)
	if err := follow(lines, "awaiting_approval"); err != nil {
		return err
	}
	if err := c.call("POST", "/api/sessions/"+created.ID+"/review", map[string]string{"choice": "approve_auto"}, nil); err != nil {
		return err
	}
	if err := follow(lines, "completed"); err != nil {
		return err
	}
	b, err := os.ReadFile(root + "/NOTES.md")
	if err != nil {
		return err
	}
	fmt.Printf("NOTES.md %s", b)
	return nil
}

// follow prints the stream's events until a done event with status.
func follow(lines *bufio.Scanner, status string) error {
	for lines.Scan() {
		data, ok := strings.CutPrefix(lines.Text(), "data: ")
		if !ok {
			continue
		}
		var ev map[string]any
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			return err
		}
		switch ev["type"] {
		case "tool_call":
			fmt.Println("tool    ", ev["name"])
		case "plan":
			fmt.Println("plan    ", ev["title"])
		case "approved":
			fmt.Println("approved")
		case "done":
			fmt.Println("done    ", ev["status"])
			if ev["status"] == status {
				return nil
			}
		}
	}
	return fmt.Errorf("the event stream ended before %s: %v", status, lines.Err())
}

type client struct{ base, token string }

func (c client) call(method, path string, body, out any) error {
	j, _ := json.Marshal(body)
	req, _ := http.NewRequest(method, c.base+path, bytes.NewReader(j))
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		var e bytes.Buffer
		e.ReadFrom(resp.Body)
		return fmt.Errorf("%s %s: %s %s", method, path, resp.Status, e.String())
	}
	if out != nil {
		return json.NewDecoder(resp.Body).Decode(out)
	}
	return nil
}

// events opens the session's Server-Sent Events.
func (c client) events(id string) (io.ReadCloser, error) {
	req, _ := http.NewRequest("GET", c.base+"/api/sessions/"+id+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+c.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("events: %s", resp.Status)
	}
	return resp.Body, nil
}

// script plays a model that plans one step and carries it out. A file
// script (scripted.LoadFile) or a real provider fits here the same way.
func script() *scripted.Provider {
	return scripted.New(
		scripted.Turn{Text: "Plan ready.", Calls: scripted.Calls(scripted.Call("submit_plan", map[string]any{
			"title": "Notes", "content": "Write NOTES.md.", "steps": []string{"write NOTES.md"}}))},
		scripted.Turn{Calls: scripted.Calls(scripted.Call("write_file", map[string]any{
			"path": "NOTES.md", "content": "An example session served by harness9's service package.\n"}))},
		scripted.Turn{Calls: scripted.Calls(scripted.Call("todo_write", map[string]any{
			"todos": []map[string]any{{"id": "1", "content": "write NOTES.md", "status": "completed"}}}))},
		scripted.Turn{Text: "Done."},
	)
}
