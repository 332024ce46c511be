-- wrk: POST /v1/chat with a question the Elysia corpus answers (non-streamed).
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local questions = {
  '{"message":"How do I validate a request body?"}',
  '{"message":"How do I stream server-sent events?"}',
  '{"message":"How do lifecycle hooks work?"}',
  '{"message":"How do I deploy to Cloudflare Workers?"}',
}
local i = 0
request = function()
  i = i + 1
  return wrk.format(nil, nil, nil, questions[(i % #questions) + 1])
end
