package telemetry

import (
	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
)

// The attributes harness9 records: the GenAI semantic conventions' where
// they have one, harness9.* for what they do not cover.
const (
	OperationName     = semconv.GenAIOperationNameKey
	ProviderName      = semconv.GenAIProviderNameKey
	RequestModel      = semconv.GenAIRequestModelKey
	AgentName         = semconv.GenAIAgentNameKey
	ConversationID    = semconv.GenAIConversationIDKey
	InputTokens       = semconv.GenAIUsageInputTokensKey
	OutputTokens      = semconv.GenAIUsageOutputTokensKey
	CacheReadTokens   = semconv.GenAIUsageCacheReadInputTokensKey
	CacheWriteTokens  = semconv.GenAIUsageCacheCreationInputTokensKey
	FinishReasons     = semconv.GenAIResponseFinishReasonsKey
	TimeToFirstChunk  = semconv.GenAIResponseTimeToFirstChunkKey
	TokenType         = semconv.GenAITokenTypeKey
	ToolName          = semconv.GenAIToolNameKey
	ToolCallID        = semconv.GenAIToolCallIDKey
	ToolType          = semconv.GenAIToolTypeKey
	ErrorType         = semconv.ErrorTypeKey
	SystemInstruction = semconv.GenAISystemInstructionsKey // with WithContent only
	InputMessages     = semconv.GenAIInputMessagesKey      // with WithContent only
	OutputMessages    = semconv.GenAIOutputMessagesKey     // with WithContent only
	ToolArguments     = semconv.GenAIToolCallArgumentsKey  // with WithContent only
	ToolResult        = semconv.GenAIToolCallResultKey     // with WithContent only

	Mode           = attribute.Key("harness9.mode")             // default, plan, auto_edit
	Workdir        = attribute.Key("harness9.workdir")          // the run's working directory
	ParentSession  = attribute.Key("harness9.parent_session")   // a sub-agent's parent session
	RunStatus      = attribute.Key("harness9.run.status")       // completed, awaiting_approval, stalled …
	Decision       = attribute.Key("harness9.tool.decision")    // allowed, allowed_by_rule, asked, denied
	Rule           = attribute.Key("harness9.tool.rule")        // the permission rule that decided
	Refused        = attribute.Key("harness9.tool.refused")     // the mode's gate refused the call
	ExitCode       = attribute.Key("harness9.tool.exit_code")   // a command's exit status
	SandboxPolicy  = attribute.Key("harness9.sandbox.policy")   // read-only, workspace-write
	Sandbox        = attribute.Key("harness9.sandbox")          // landlock, off, unavailable
	Messages       = attribute.Key("harness9.request.messages") // messages in a model request
	Tools          = attribute.Key("harness9.request.tools")    // tool definitions in a model request
	PlanOutcome    = attribute.Key("harness9.plan.outcome")     // submitted, approved, refined, cancelled, stalled
	PlanSteps      = attribute.Key("harness9.plan.steps")
	PlanTitle      = attribute.Key("harness9.plan.title") // with WithContent only
	Round          = attribute.Key("harness9.exec.round")
	Done           = attribute.Key("harness9.exec.done")
	Total          = attribute.Key("harness9.exec.total")
	BeforeTokens   = attribute.Key("harness9.compaction.before_tokens")
	AfterTokens    = attribute.Key("harness9.compaction.after_tokens")
	OutputBytes    = attribute.Key("harness9.tool.output_bytes")
	ToolOutcome    = attribute.Key("harness9.tool.outcome") // ok, error
	ErrorRunStatus = "run_error"
)
