-- Take the exclusive lease on an instance and read it in one step.
-- KEYS[1] lease key, KEYS[2] instance hash
-- ARGV[1] lease token, ARGV[2] lease ttl (ms), ARGV[3] 'init' | 'write' | 'upsert'
-- Returns {1, version, state, lookups} when taken (init: {1}),
--         {0, pttl} when another holder has it,
--         {-2} init on an existing instance, {-3} write on a missing instance
--         (upsert: a missing instance reads as version 0 with empty state).
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  local h = redis.call('HMGET', KEYS[2], 'v', 's', 'k')
  if ARGV[3] == 'init' then
    if h[1] then
      redis.call('DEL', KEYS[1])
      return {-2}
    end
    return {1}
  end
  if not h[1] then
    if ARGV[3] == 'upsert' then return {1, '0', '', ''} end
    redis.call('DEL', KEYS[1])
    return {-3}
  end
  return {1, h[1], h[2], h[3] or ''}
end
return {0, redis.call('PTTL', KEYS[1])}
