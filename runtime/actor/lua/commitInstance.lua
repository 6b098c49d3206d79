-- Commit a handler's changes atomically and release the lease: state, version,
-- lookup keys, the stream outbox entry, scheduled tasks, committed effects, events,
-- the delivery that caused it and (for a QUEUED_WRITE job) the job's completion all
-- land together, or nothing does.
-- KEYS[1] instance hash, KEYS[2] lease, KEYS[3] outbox stream, KEYS[4] task stream,
-- KEYS[5] event stream, KEYS[6] instance's pending-job set, KEYS[7] job result key,
-- KEYS[8] delivery marker key, KEYS[9] effect stream, KEYS[10] the lease's waiters,
-- KEYS[11] the lease's wake-up list (see acquireInstance.lua),
-- KEYS[12..] lookup keys to add, then lookup keys to remove
-- ARGV[1] lease token, ARGV[2] expected version, ARGV[3] changed ('1'|'0'),
-- ARGV[4] state json, ARGV[5] lookup map json ('' when none), ARGV[6] class id,
-- ARGV[7] instance id, ARGV[8] #adds, ARGV[9] #removes, ARGV[10] tasks json ('' none),
-- ARGV[11] events json ('' none), ARGV[12] job id ('' none), ARGV[13] job result json,
-- ARGV[14] job result ttl (s), ARGV[15] keep the lease for this many ms (0: release it),
-- ARGV[16] delivery id ('' none: a task or committed effect being applied),
-- ARGV[17] delivery marker ttl (s), ARGV[18] effects json ('' none),
-- ARGV[19] the effect-stream entry this commit finishes ('' none: the last effect of an entry deletes it)
-- ARGV[20] deadline, ms since the epoch by Redis's clock ('' none): a commit that reaches Redis later
--   (it waited in a frozen Redis while its caller timed out and answered 503) is refused
-- ARGV[21] how long a lease handed over to a waiting process waits to be taken (ms),
-- ARGV[22] '1' when the lease may be kept for the next local writer even though another
--   process waits (the holder's run of local turns is still short)
-- The lease is kept for the next local writer (ARGV[15]) while no other process waits for it,
-- or for a short run of turns while one does; then it goes to the longest waiter, so a hot
-- instance is shared fairly and each hand-over between processes serves a few writes.
-- An empty token (ARGV[1] '') is a creation without a lease (INIT with lease: false): it
-- commits only while nobody holds the lease and the instance does not exist.
-- Effectively once: a delivery whose marker exists, or a job that is no longer pending,
-- was applied before (its worker died after the commit, or another worker ran it): the
-- commit is refused and nothing is written again.
-- Returns {1, version, task entry id or '', effect entry id or '', the job now heading the
--   instance's queue or '', 1 when the lease was kept else 0} | {-1} lease lost
--   | {-2, version} version moved | {-3, key} lookup key taken | {-4} already applied | {-5} past its deadline
-- @include releaseToWaiters
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if ARGV[20] ~= '' and now > tonumber(ARGV[20]) then return {-5} end
if ARGV[1] == '' then
  if redis.call('EXISTS', KEYS[2]) == 1 then return {-2, -1} end
elseif redis.call('GET', KEYS[2]) ~= ARGV[1] then
  return {-1}
end
if ARGV[16] ~= '' and redis.call('EXISTS', KEYS[8]) == 1 then return {-4} end
if ARGV[12] ~= '' and not redis.call('ZSCORE', KEYS[6], ARGV[12]) then return {-4} end
local v = tonumber(redis.call('HGET', KEYS[1], 'v') or '0')
if v ~= tonumber(ARGV[2]) then return {-2, v} end
local id = ARGV[7]
local nA = tonumber(ARGV[8])
local nR = tonumber(ARGV[9])
for j = 12, 11 + nA do
  local owner = redis.call('GET', KEYS[j])
  if owner and owner ~= id then return {-3, KEYS[j]} end
end
local nv = v
if ARGV[3] == '1' then
  for j = 12 + nA, 11 + nA + nR do
    if redis.call('GET', KEYS[j]) == id then redis.call('DEL', KEYS[j]) end
  end
  for j = 12, 11 + nA do redis.call('SET', KEYS[j], id) end
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
if ARGV[10] ~= '' then taskEntry = redis.call('XADD', KEYS[4], '*', 't', ARGV[10]) end
local effectEntry = ''
if ARGV[18] ~= '' then effectEntry = redis.call('XADD', KEYS[9], '*', 'f', ARGV[18]) end
if ARGV[11] ~= '' then redis.call('XADD', KEYS[5], '*', 'c', ARGV[6], 'i', id, 'v', nv, 'e', ARGV[11]) end
-- a job's completion names its successor, which the worker then hands to BullMQ's wait list
local nextJob = ''
if ARGV[12] ~= '' then
  redis.call('ZREM', KEYS[6], ARGV[12])
  redis.call('SET', KEYS[7], ARGV[13], 'EX', ARGV[14])
  nextJob = redis.call('ZRANGE', KEYS[6], 0, 0)[1] or ''
end
if ARGV[16] ~= '' then redis.call('SET', KEYS[8], nv, 'EX', ARGV[17]) end
if ARGV[19] ~= '' then redis.call('XDEL', KEYS[9], ARGV[19]) end
local kept = 0
if ARGV[1] ~= '' then
  redis.call('ZREMRANGEBYSCORE', KEYS[10], '-inf', now)
  if tonumber(ARGV[15]) > 0 and (ARGV[22] == '1' or redis.call('ZCARD', KEYS[10]) == 0) then
    redis.call('PEXPIRE', KEYS[2], ARGV[15])
    kept = 1
  else
    releaseToWaiters(KEYS[2], KEYS[10], KEYS[11], now, ARGV[21])
  end
end
return {1, nv, taskEntry, effectEntry, nextJob, kept}
