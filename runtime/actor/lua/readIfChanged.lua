-- Read an instance unless the caller already holds its current version.
-- KEYS[1] instance hash
-- ARGV[1] the version the caller holds ('' for none)
-- Returns {-1} when the instance does not exist, {0} when its version is
-- ARGV[1] (nothing else is sent), else {1, version, state, lookups}.
local v = redis.call('HGET', KEYS[1], 'v')
if not v then return {-1} end
if v == ARGV[1] then return {0} end
local h = redis.call('HMGET', KEYS[1], 's', 'k')
return {1, v, h[1] or '{}', h[2] or ''}
