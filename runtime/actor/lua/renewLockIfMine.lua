-- Extends a lock only while the caller holds it.
-- KEYS[1] the lock
-- ARGV[1] the caller's token, ARGV[2] the new time-to-live (ms)
-- Returns 1 when extended, 0 when the lock is another's or gone.
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
