-- Release a lease only when we still hold it: to the longest waiter when others wait
-- (see acquireInstance.lua), else freed.
-- KEYS[1] lease key, KEYS[2] the lease's waiters, KEYS[3] the lease's wake-up list
-- ARGV[1] token, ARGV[2] how long a handed-over lease waits to be taken (ms)
-- Returns 0 when the lease was not ours, 1 when freed, 2 when handed over.
-- @include releaseToWaiters
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
local t = redis.call('TIME')
if releaseToWaiters(KEYS[1], KEYS[2], KEYS[3], tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000), ARGV[2]) then return 2 end
return 1
