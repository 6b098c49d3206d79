-- Commit a handler's changes atomically and release the lease: state, version,
-- the lookup map, the stream outbox entry, scheduled tasks, committed effects, events,
-- the delivery that caused it and (for a QUEUED_WRITE job) the job's completion all
-- land together, or nothing does. Every key is in the instance's bucket (one hash tag,
-- one slot of a cluster); lookup keys live in their own slots and are reserved before
-- this commit and confirmed after it (claimLookup.lua, settleLookup.lua).
-- KEYS[1] instance hash, KEYS[2] lease, KEYS[3] outbox stream, KEYS[4] task stream,
-- KEYS[5] event stream, KEYS[6] instance's pending-job set, KEYS[7] job result key,
-- KEYS[8] delivery marker key, KEYS[9] effect stream, KEYS[10] the lease's waiters,
-- KEYS[11] the lease's wake-up list (see acquireInstance.lua)
-- ARGV[1] lease token, ARGV[2] expected version, ARGV[3] changed ('1'|'0'),
-- ARGV[4] state json, ARGV[5] lookup map json ('' when none), ARGV[6] class id,
-- ARGV[7] instance id, ARGV[8] tasks json ('' none), ARGV[9] events json ('' none),
-- ARGV[10] job id ('' none), ARGV[11] job result json, ARGV[12] job result ttl (s),
-- ARGV[13] keep the lease for this many ms (0: release it),
-- ARGV[14] delivery id ('' none: a task or committed effect being applied),
-- ARGV[15] delivery marker ttl (s), ARGV[16] effects json ('' none),
-- ARGV[17] the effect-stream entry this commit finishes ('' none: the last effect of an entry deletes it)
-- ARGV[18] deadline, ms since the epoch by Redis's clock ('' none): a commit that reaches Redis later
--   (it waited in a frozen Redis while its caller timed out and answered 503, or its lookup
--   reservations may have lapsed) is refused
-- ARGV[19] how long a lease handed over to a waiting process waits to be taken (ms),
-- ARGV[20] '1' when the lease may be kept for the next local writer even though another
--   process waits (the holder's run of local turns is still short)
-- The lease is kept for the next local writer (ARGV[13]) while no other process waits for it,
-- or for a short run of turns while one does; then it goes to the longest waiter, so a hot
-- instance is shared fairly and each hand-over between processes serves a few writes.
-- An empty token (ARGV[1] '') is a creation without a lease (INIT with lease: false): it
-- commits only while nobody holds the lease and the instance does not exist.
-- The lease token is the fencing token: a holder whose lease expired, or was lost with a
-- failed-over master, finds another token (or none) here and writes nothing.
-- Effectively once: a delivery whose marker exists, or a job that is no longer pending,
-- was applied before (its worker died after the commit, or another worker ran it): the
-- commit is refused and nothing is written again.
-- Returns {1, version, task entry id or '', effect entry id or '', the job now heading the
--   instance's queue or '', 1 when the lease was kept else 0} | {-1} lease lost
--   | {-2, version} version moved | {-4} already applied | {-5} past its deadline
-- @include releaseToWaiters
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if ARGV[18] ~= '' and now > tonumber(ARGV[18]) then return {-5} end
if ARGV[1] == '' then
  if redis.call('EXISTS', KEYS[2]) == 1 then return {-2, -1} end
elseif redis.call('GET', KEYS[2]) ~= ARGV[1] then
  return {-1}
end
if ARGV[14] ~= '' and redis.call('EXISTS', KEYS[8]) == 1 then return {-4} end
if ARGV[10] ~= '' and not redis.call('ZSCORE', KEYS[6], ARGV[10]) then return {-4} end
local v = tonumber(redis.call('HGET', KEYS[1], 'v') or '0')
if v ~= tonumber(ARGV[2]) then return {-2, v} end
local id = ARGV[7]
local nv = v
if ARGV[3] == '1' then
  nv = v + 1
  if ARGV[5] == '' then
    redis.call('HDEL', KEYS[1], 'k')
    redis.call('HSET', KEYS[1], 'v', nv, 's', ARGV[4])
  else
    redis.call('HSET', KEYS[1], 'v', nv, 's', ARGV[4], 'k', ARGV[5])
  end
  redis.call('XADD', KEYS[3], '*', 'c', ARGV[6], 'i', id, 'v', nv)
end
local taskEntry = ''
if ARGV[8] ~= '' then taskEntry = redis.call('XADD', KEYS[4], '*', 't', ARGV[8]) end
local effectEntry = ''
if ARGV[16] ~= '' then effectEntry = redis.call('XADD', KEYS[9], '*', 'f', ARGV[16]) end
if ARGV[9] ~= '' then redis.call('XADD', KEYS[5], '*', 'c', ARGV[6], 'i', id, 'v', nv, 'e', ARGV[9]) end
-- a job's completion names its successor, which the worker then hands to BullMQ's wait list
local nextJob = ''
if ARGV[10] ~= '' then
  redis.call('ZREM', KEYS[6], ARGV[10])
  redis.call('SET', KEYS[7], ARGV[11], 'EX', ARGV[12])
  nextJob = redis.call('ZRANGE', KEYS[6], 0, 0)[1] or ''
end
if ARGV[14] ~= '' then redis.call('SET', KEYS[8], nv, 'EX', ARGV[15]) end
if ARGV[17] ~= '' then redis.call('XDEL', KEYS[9], ARGV[17]) end
local kept = 0
if ARGV[1] ~= '' then
  redis.call('ZREMRANGEBYSCORE', KEYS[10], '-inf', now)
  if tonumber(ARGV[13]) > 0 and (ARGV[20] == '1' or redis.call('ZCARD', KEYS[10]) == 0) then
    redis.call('PEXPIRE', KEYS[2], ARGV[13])
    kept = 1
  else
    releaseToWaiters(KEYS[2], KEYS[10], KEYS[11], now, ARGV[19])
  end
end
return {1, nv, taskEntry, effectEntry, nextJob, kept}
