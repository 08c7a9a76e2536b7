package planning

// Every model-facing text of the Planning module lives here, in English.
// Prompts describe behaviour, never permissions (the gate enforces those,
// and a model can be talked out of a prompt): what a
// run may do is decided by GateFor and the tools, and a prompt that claimed
// otherwise would only be a second, weaker copy of that rule.

// PlanModePrefix is put before the user's request in a Plan-Mode run.
const PlanModePrefix = `You are planning, not implementing. Analyse the request below and produce an implementation plan for the user to approve.

1. Explore first: read the relevant files, list directories, search the code. Use bash only for read-only commands (ls, cat, grep, find, git log/diff/status ...).
2. Do not create or edit files, install anything, run builds or make any other change; that happens after the user approves the plan.
3. Write steps that are concrete, actionable implementation actions — "create handler/user.go with the CreateUser handler", "add a test for X in y_test.go", "run go test ./..." — never vague phases such as "clarify requirements" or "design the solution". Each step should be one unit of work that can be checked off.
4. When you understand the task, call submit_plan once with a short title, the plan in markdown as content (context, approach, files to change, risks) and the ordered steps.
5. Then stop: the user will approve the plan, ask for changes, or cancel.

Request:
`

// PlanPrompt returns the user prompt of a Plan-Mode run: PlanModePrefix
// followed by the user's request.
func PlanPrompt(userPrompt string) string { return PlanModePrefix + userPrompt }

// ExecPrompt starts the execution of an approved plan (the first round).
const ExecPrompt = `The plan is approved. Work through the todo list item by item. Rules:
1. Before starting an item, use todo_write to set its status to in_progress.
2. Do the actual work for that item with tools — create and edit files, write code, run commands. Updating the status with todo_write without calling any other tool does not count as doing the item.
3. Once you have verified real output (the file exists, the test passes, the command succeeded), use todo_write to set the item to completed.
4. Do not write progress summaries between items; move on to the next item immediately.
When every item is completed, report the overall result in one sentence.`

// ExecContinuePrompt continues execution in the following rounds; the rules
// of ExecPrompt are already in the history, so it stays short.
const ExecContinuePrompt = `Continue with the next pending or in_progress item of the todo list. Mark it in_progress with todo_write, do the actual work with tools (write files, run commands), and once you have verified the output mark it completed before moving to the next item. Do not only update statuses without doing real work, and do not write a progress summary.`

// TodoSystemPrompt is the system-prompt section on todo discipline; the
// engine appends it to the system prompt whenever todo_write is available.
const TodoSystemPrompt = `## Task tracking with todo_write
- For a task with three or more distinct steps, record the steps with todo_write before you start, and keep the list current as you go.
- todo_write replaces the whole list each time: always send every item (id, content, status). Call it with no todos to read the current list.
- Have exactly one item in_progress at a time. Set an item to in_progress before you work on it and to completed right after you have verified the result.
- Only mark an item completed after real work for it — files written or edited, commands run and checked. A call that marks an item completed without any other tool call since the previous todo_write is refused, and so is completing several pending items at once.
- Use cancelled for items that turn out to be unnecessary; a cancelled item cannot be completed later without being reopened (pending or in_progress) first.`

// TodoWriteDescription is the todo_write tool's description.
const TodoWriteDescription = `Read or replace the task list of this session.
- With a non-empty todos array, the list is replaced completely by the items you send (full replace: include every item you want to keep, with its id, content and status).
- With todos omitted or empty, nothing changes and the current list is returned.
The result is always the current list as JSON.
Use it for tasks with three or more steps: write the list before starting, set one item to in_progress before working on it, and set it to completed right after you have verified the work. Statuses: pending, in_progress, completed, cancelled.
Refused (the list stays unchanged and the error says how to fix the call): more than one item going straight from pending (or new) to completed in one call; completing a cancelled item; completing anything when no other tool has run since the previous todo_write; empty or duplicate ids; empty content; unknown statuses.`

// SubmitPlanDescription is the submit_plan tool's description.
const SubmitPlanDescription = `Submit your implementation plan for the user's approval and end this planning turn.
Call it once, after exploring, with:
- title: a short name for the task (a few words);
- content: the plan in markdown — context, approach, files to change, risks;
- steps: the ordered, concrete implementation steps, each one actionable and checkable (they become the todo list).
After this call, stop: the user approves the plan, asks for changes, or cancels.`

// Model-facing results of the planning tools.
const (
	planSubmittedText = "Plan %q submitted with %d steps; it now awaits the user's approval. " +
		"Stop here and do not call any more tools: the user will approve it, ask for changes, or cancel."
	refusalUnchanged = " The todo list was not changed."
)
