-- The output tokens a model spent reasoning, where its API reports them
-- (OpenAI's reasoning_tokens, Anthropic's thinking_tokens): part of
-- output_tokens, counted apart so that reports can show them.
ALTER TABLE session_usage ADD COLUMN reasoning_tokens INTEGER NOT NULL DEFAULT 0;
