-- Commit a write run on a cached snapshot without the lease (the dispatcher's
-- optimistic path) whose only change is the instance's state: no tasks, events,
-- effects, lookups, job or delivery (those commit through commitSnapshot.lua or
-- commitInstance.lua). The plainest write, so the fewest arguments: the outbox
-- entry's class and instance ids are read from the instance key's name
-- (`<tag>:i:<classId>:<id>`; class ids are letters, digits and '_', instance ids
-- hold no ':'). State, version and the outbox entry land together only while the
-- instance is still at the snapshot's version and nobody holds (or is being handed)
-- its lease; otherwise nothing is written and the caller runs the handler again
-- under the lease. Every key is in the instance's bucket (one hash tag, one slot
-- of a cluster).
-- KEYS[1] instance hash, KEYS[2] lease, KEYS[3] outbox stream
-- ARGV[1] expected version, ARGV[2] state json ('' unchanged: only checked),
-- ARGV[3] deadline, ms since the epoch by Redis's clock ('' none): a commit that
--   reaches Redis later (its caller timed out and answered 503) is refused
-- Returns {1, version, '', ''} | {-2, version} the instance moved (version -1: its
--   lease is held) | {-5} past its deadline
if ARGV[3] ~= '' then
  local t = redis.call('TIME')
  if tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) > tonumber(ARGV[3]) then return {-5} end
end
if redis.call('EXISTS', KEYS[2]) == 1 then return {-2, -1} end
local v = tonumber(redis.call('HGET', KEYS[1], 'v') or '0')
if v ~= tonumber(ARGV[1]) then return {-2, v} end
local nv = v
if ARGV[2] ~= '' then
  local classId, id = string.match(KEYS[1], ':i:([%w_]+):([^:]+)$')
  -- a key of another shape: nothing written, the write runs again under the lease (commitInstance.lua)
  if not classId then return {-2, -1} end
  nv = v + 1
  redis.call('HSET', KEYS[1], 'v', nv, 's', ARGV[2])
  redis.call('XADD', KEYS[3], '*', 'c', classId, 'i', id, 'v', nv)
end
return {1, nv, '', ''}
