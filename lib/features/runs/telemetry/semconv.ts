/**
 * The OpenTelemetry GenAI semantic conventions Hookplane's spans follow (Development status,
 * semantic-conventions 1.3x: `gen_ai.provider.name` rather than the older `gen_ai.system`).
 * Copied, as the semantic-conventions package asks of users of its incubating entry (which may
 * break in a minor version); semconv.test.ts checks each against the installed package, so an
 * upgrade that renames one fails there.
 */
export const ATTR_GEN_AI_OPERATION_NAME = "gen_ai.operation.name";
export const ATTR_GEN_AI_PROVIDER_NAME = "gen_ai.provider.name";
/** Deprecated for gen_ai.provider.name; still what some backends read, so both are set. */
export const ATTR_GEN_AI_SYSTEM = "gen_ai.system";
export const ATTR_GEN_AI_REQUEST_MODEL = "gen_ai.request.model";
export const ATTR_GEN_AI_RESPONSE_FINISH_REASONS = "gen_ai.response.finish_reasons";
export const ATTR_GEN_AI_USAGE_INPUT_TOKENS = "gen_ai.usage.input_tokens";
export const ATTR_GEN_AI_USAGE_OUTPUT_TOKENS = "gen_ai.usage.output_tokens";
export const ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS = "gen_ai.usage.cache_read.input_tokens";
export const ATTR_GEN_AI_AGENT_ID = "gen_ai.agent.id";
export const ATTR_GEN_AI_AGENT_NAME = "gen_ai.agent.name";
export const ATTR_GEN_AI_CONVERSATION_ID = "gen_ai.conversation.id";
export const ATTR_GEN_AI_TOOL_NAME = "gen_ai.tool.name";
export const ATTR_GEN_AI_TOOL_CALL_ID = "gen_ai.tool.call.id";
/** Opt-in content (HOOKPLANE_OTEL_CAPTURE_CONTENT). */
export const ATTR_GEN_AI_TOOL_CALL_ARGUMENTS = "gen_ai.tool.call.arguments";
export const ATTR_GEN_AI_TOOL_CALL_RESULT = "gen_ai.tool.call.result";
export const ATTR_GEN_AI_INPUT_MESSAGES = "gen_ai.input.messages";
export const ATTR_GEN_AI_OUTPUT_MESSAGES = "gen_ai.output.messages";

export const GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT = "invoke_agent";
export const GEN_AI_OPERATION_NAME_VALUE_CHAT = "chat";
export const GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL = "execute_tool";

/** Not in the conventions: the names the common backends read (Langfuse: cost; Langfuse and Phoenix: sessions; Phoenix: the span's kind). */
export const ATTR_GEN_AI_USAGE_COST = "gen_ai.usage.cost";
export const ATTR_SESSION_ID = "session.id";
export const ATTR_OPENINFERENCE_SPAN_KIND = "openinference.span.kind";
