-- Append an entry to a journal, keep entries for the retention period, and
-- index the entry under its subject.
-- KEYS[1] the journal's stream
-- KEYS[2] the subject's index (a list of entry ids, newest first); absent: no subject
-- ARGV[1] the entry (JSON)
-- ARGV[2] retention in milliseconds
-- ARGV[3] the most entry ids a subject's index keeps
-- Returns the entry's id (its time on Redis's clock, milliseconds, and a sequence).
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local oldest = now - tonumber(ARGV[2])
-- entries older than the retention go: each append removes the few that passed it since the last one
local id = redis.call('XADD', KEYS[1], 'MINID', tostring(oldest), '*', 'e', ARGV[1])
if KEYS[2] then
  redis.call('LPUSH', KEYS[2], id)
  redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[3]) - 1)
  redis.call('PEXPIRE', KEYS[2], ARGV[2])
end
return id
