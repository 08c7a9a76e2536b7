-- The output tokens a model spent reasoning, where its API reports them
-- (OpenAI's reasoning_tokens, Anthropic's thinking_tokens): part of
-- output_tokens, counted apart so that reports can show them.
ALTER TABLE harness9.session_usage ADD COLUMN reasoning_tokens bigint NOT NULL DEFAULT 0;
