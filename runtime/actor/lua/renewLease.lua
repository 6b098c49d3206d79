-- Extend a lease only when we still hold it.
-- KEYS[1] lease key; ARGV[1] token, ARGV[2] ttl (ms)
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
