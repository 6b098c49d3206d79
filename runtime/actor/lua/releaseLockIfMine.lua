-- Deletes a lock only while the caller holds it.
-- KEYS[1] the lock
-- ARGV[1] the caller's token
-- Returns 1 when released, 0 when the lock is another's or gone.
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
