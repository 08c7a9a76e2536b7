package tool

import "context"

// Question is input a running tool needs from the user: an MCP server's
// elicitation request, a form of a few typed fields or a page to open.
type Question struct {
	// From names who asks, for the user ("MCP server github").
	From string
	// Message is the asker's own text, to show as it is (untrusted).
	Message string
	// Fields are the values asked for, in the asker's order; none when URL
	// is set.
	Fields []Field
	// URL is a page the user is asked to open (an MCP URL elicitation)
	// instead of filling in a form.
	URL string
	// ReadOnly says the asker cannot change anything with the answer (every
	// tool of the MCP server is read-only); while planning only such
	// questions are put to the user.
	ReadOnly bool
}

// FieldKind is the type of a Field's value.
type FieldKind string

// The kinds of field a Question can hold.
const (
	FieldString  FieldKind = "string"
	FieldNumber  FieldKind = "number"
	FieldInteger FieldKind = "integer"
	FieldBoolean FieldKind = "boolean"
	// FieldChoice is one of Options; FieldChoices any number of them.
	FieldChoice  FieldKind = "choice"
	FieldChoices FieldKind = "choices"
)

// Field is one value a Question asks for.
type Field struct {
	Name        string
	Title       string
	Description string
	Kind        FieldKind
	Required    bool
	// Default is the value offered first (a string, float64, bool or
	// []string by Kind), nil when none.
	Default any
	// Options are the values of a choice, with their labels.
	Options []Option
	// Format is a string's format ("email", "uri", "date", "date-time").
	Format string
	// Min and Max bound a number or a string's length, or the number of
	// choices; nil when unbounded.
	Min, Max *float64
}

// Option is one value of a choice field.
type Option struct {
	Value string
	Label string
}

// AnswerAction is what the user did with a Question.
type AnswerAction string

// The actions of an Answer (MCP's elicitation actions).
const (
	Accept  AnswerAction = "accept"  // submitted the form, or opened the page
	Decline AnswerAction = "decline" // said no
	Cancel  AnswerAction = "cancel"  // dismissed it without choosing
)

// Answer is the user's reply to a Question.
type Answer struct {
	Action AnswerAction
	// Values hold the accepted form's values by field name: string,
	// float64 (number), int64 (integer), bool or []string (choices).
	Values map[string]any
}

// Asker puts a Question to the user and waits for the Answer. It returns
// an error when nobody can answer (the run ended).
type Asker func(ctx context.Context, q Question) (Answer, error)

type askerKey struct{}

// ContextWithAsker returns ctx carrying a, which tools that need the
// user's input while they run (MCP elicitation) call.
func ContextWithAsker(ctx context.Context, a Asker) context.Context {
	return context.WithValue(ctx, askerKey{}, a)
}

// AskerFrom returns the context's Asker, or nil when nobody can be asked
// (a headless run): the tool then declines on the user's behalf.
func AskerFrom(ctx context.Context) Asker {
	a, _ := ctx.Value(askerKey{}).(Asker)
	return a
}
