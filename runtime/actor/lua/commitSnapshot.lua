-- Commit a write whose handler ran on a cached snapshot without the lease (the
-- dispatcher's optimistic path): state, version, the stream outbox entry, scheduled
-- tasks, events and committed effects land together only while the instance is still
-- at the snapshot's version and nobody holds (or is being handed) its lease; otherwise
-- nothing is written and the caller runs the handler again under the lease. The
-- plain write's commit, with few arguments: no lease to release or keep, no job, no
-- delivery, no lookup change (those commit through commitInstance.lua). Every key is
-- in the instance's bucket (one hash tag, one slot of a cluster).
-- KEYS[1] instance hash, KEYS[2] lease, KEYS[3] outbox stream, KEYS[4] task stream,
-- KEYS[5] event stream, KEYS[6] effect stream
-- ARGV[1] expected version, ARGV[2] state json ('' unchanged: only checked),
-- ARGV[3] class id, ARGV[4] instance id, ARGV[5] tasks json ('' none),
-- ARGV[6] events json ('' none), ARGV[7] effects json ('' none),
-- ARGV[8] deadline, ms since the epoch by Redis's clock ('' none): a commit that
--   reaches Redis later (its caller timed out and answered 503) is refused
-- Returns {1, version, task entry id or '', effect entry id or ''}
--   | {-2, version} the instance moved (version -1: its lease is held) | {-5} past its deadline
if ARGV[8] ~= '' then
  local t = redis.call('TIME')
  if tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) > tonumber(ARGV[8]) then return {-5} end
end
if redis.call('EXISTS', KEYS[2]) == 1 then return {-2, -1} end
local v = tonumber(redis.call('HGET', KEYS[1], 'v') or '0')
if v ~= tonumber(ARGV[1]) then return {-2, v} end
local nv = v
if ARGV[2] ~= '' then
  nv = v + 1
  redis.call('HSET', KEYS[1], 'v', nv, 's', ARGV[2])
  redis.call('XADD', KEYS[3], '*', 'c', ARGV[3], 'i', ARGV[4], 'v', nv)
end
local taskEntry = ''
if ARGV[5] ~= '' then taskEntry = redis.call('XADD', KEYS[4], '*', 't', ARGV[5]) end
local effectEntry = ''
if ARGV[7] ~= '' then effectEntry = redis.call('XADD', KEYS[6], '*', 'f', ARGV[7]) end
if ARGV[6] ~= '' then redis.call('XADD', KEYS[5], '*', 'c', ARGV[3], 'i', ARGV[4], 'v', nv, 'e', ARGV[6]) end
return {1, nv, taskEntry, effectEntry}
