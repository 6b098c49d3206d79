-- Release a lease only when we still hold it: to the longest waiter when others wait
-- (see acquireInstance.lua), else freed.
-- KEYS[1] lease key, KEYS[2] the lease's waiters, KEYS[3] the lease's wake-up list
-- ARGV[1] token, ARGV[2] how long a handed-over lease waits to be taken (ms)
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
local t = redis.call('TIME')
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))
if redis.call('ZCARD', KEYS[2]) > 0 then
  redis.call('SET', KEYS[1], 'handoff', 'PX', ARGV[2])
  redis.call('RPUSH', KEYS[3], '1')
  redis.call('LTRIM', KEYS[3], -1, -1)
  redis.call('PEXPIRE', KEYS[3], ARGV[2])
  return 2
end
redis.call('DEL', KEYS[1])
return 1
