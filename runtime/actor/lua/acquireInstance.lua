-- Take the exclusive lease on an instance and read it in one step.
-- KEYS[1] lease key, KEYS[2] instance hash, KEYS[3] the lease's waiters (sorted set:
-- waiter token -> until when it waits, ms), KEYS[4] the lease's wake-up list
-- ARGV[1] lease token, ARGV[2] lease ttl (ms), ARGV[3] 'init' | 'write' | 'upsert',
-- ARGV[4] '1' when the caller was woken by a hand-over (it may take a lease handed to
-- the waiters), ARGV[5] how long the caller waits if the lease is busy (ms; 0: it does
-- not wait on the wake-up list), ARGV[6] how long a handed-over lease waits to be taken (ms)
-- A lease released while others wait is not freed but set to 'handoff' and a wake-up
-- pushed: Redis wakes the longest-blocked waiter, and only a woken waiter takes a lease
-- in hand-over, so a process arriving meanwhile queues behind the waiters already blocked
-- (fair across processes) instead of taking it first. A waiter between its registration and
-- its block (one round trip) can still be overtaken: fairness, not exclusivity, is at stake.
-- Returns {1, version, state, lookups} when taken (init: {1}),
--         {0, pttl} when another holder has it,
--         {-2} init on an existing instance, {-3} write on a missing instance
--         (upsert: a missing instance reads as version 0 with empty state).
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

-- @include releaseToWaiters

local holder = redis.call('GET', KEYS[1])
if holder and not (holder == 'handoff' and ARGV[4] == '1') then
  if tonumber(ARGV[5]) > 0 then
    redis.call('ZADD', KEYS[3], now + tonumber(ARGV[5]), ARGV[1])
    -- outlives every registration in it (each ZADD refreshes it), so a set whose waiters all went away goes too
    redis.call('PEXPIRE', KEYS[3], 2 * tonumber(ARGV[5]))
  end
  return {0, redis.call('PTTL', KEYS[1])}
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('ZREM', KEYS[3], ARGV[1])
local h = redis.call('HMGET', KEYS[2], 'v', 's', 'k')
if ARGV[3] == 'init' then
  if h[1] then
    releaseToWaiters(KEYS[1], KEYS[3], KEYS[4], now, ARGV[6])
    return {-2}
  end
  return {1}
end
if not h[1] then
  if ARGV[3] == 'upsert' then return {1, '0', '', ''} end
  releaseToWaiters(KEYS[1], KEYS[3], KEYS[4], now, ARGV[6])
  return {-3}
end
return {1, h[1], h[2], h[3] or ''}
