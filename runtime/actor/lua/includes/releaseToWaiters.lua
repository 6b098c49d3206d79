-- Gives a lease up: to the processes waiting for it when there are any (the lease becomes
-- 'handoff' for handoffMs and one wake-up is pushed, which Redis delivers to the longest
-- blocked waiter; only a woken waiter may take a lease in hand-over), else freed.
-- Returns true when it was handed over.
local function releaseToWaiters(lease, waiters, wake, now, handoffMs)
  redis.call('ZREMRANGEBYSCORE', waiters, '-inf', now)
  if redis.call('ZCARD', waiters) == 0 then
    redis.call('DEL', lease)
    return false
  end
  redis.call('SET', lease, 'handoff', 'PX', handoffMs)
  redis.call('RPUSH', wake, '1')
  redis.call('LTRIM', wake, -1, -1)
  redis.call('PEXPIRE', wake, handoffMs)
  return true
end
