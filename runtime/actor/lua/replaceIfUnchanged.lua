-- Replace a string key's value, or delete the key, only while it still holds the value the caller read:
-- an erasure never overwrites what was written after it looked (a new claim of an idempotency key, a
-- dead letter written again).
-- KEYS[1] the key
-- ARGV[1] the value the caller read
-- ARGV[2] the new value, written with the key's time to live kept; absent: the key is deleted
-- Returns 1 when it replaced (or deleted) the value, 0 when the key holds another value or none.
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[2] then
  redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
else
  redis.call('DEL', KEYS[1])
end
return 1
