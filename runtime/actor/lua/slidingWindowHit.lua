-- One hit of a sliding-window rate limit: at most ARGV[2] hits in any ARGV[1] ms.
-- KEYS[1] the limit's counter: a sorted set of the times (ms, Redis's clock) of the hits it counted
-- ARGV[1] window (ms), ARGV[2] max hits, ARGV[3] a member unique to this hit
-- Returns {allowed (1 | 0), hits left after this one, ms until a hit is allowed again (0 when allowed)}.
-- A refused hit is not counted, so a caller hammering a closed limit does not keep it closed; the set
-- therefore never holds more than ARGV[2] members, and expires one window after its newest hit.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[1])
local max = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local n = redis.call('ZCARD', KEYS[1])
if n < max then
  redis.call('ZADD', KEYS[1], now, ARGV[3])
  redis.call('PEXPIRE', KEYS[1], window)
  return {1, max - n - 1, 0}
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local retry = tonumber(oldest[2]) + window - now
if retry < 1 then retry = 1 end
return {0, 0, retry}
