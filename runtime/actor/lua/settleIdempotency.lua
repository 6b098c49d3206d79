-- Settles an idempotency key: replaces its value (or deletes it, with no ARGV[2]) only while the caller's claim
-- holds it, or nothing does.
-- KEYS[1] the idempotency key
-- ARGV[1] the caller's claim token, ARGV[2] the stored answer (JSON; absent: delete), ARGV[3] its time-to-live (s)
-- Returns 1 when settled, 0 when another claim holds the key.
local cur = redis.call('GET', KEYS[1])
if cur then
  local ok, v = pcall(cjson.decode, cur)
  if not ok or v.state ~= 'running' or v.token ~= ARGV[1] then return 0 end
end
if ARGV[2] then
  redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
elseif cur then
  redis.call('DEL', KEYS[1])
end
return 1
