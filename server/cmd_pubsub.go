package server

// Pub/Sub commands: SUBSCRIBE, PSUBSCRIBE, SSUBSCRIBE and their
// unsubscribes, PUBLISH, SPUBLISH and PUBSUB, over the machinery of
// pubsub.go. (P|S)SUBSCRIBE and (P|S)UNSUBSCRIBE reply one push per
// channel, which is why they write their replies themselves.

// SUBSCRIBE channel [channel ...]
func cmdSubscribe(c *Ctx, args [][]byte) error {
	c.subscribe(channelSub, args[1:])
	return nil
}

// PSUBSCRIBE pattern [pattern ...]
func cmdPSubscribe(c *Ctx, args [][]byte) error {
	c.subscribe(patternSub, args[1:])
	return nil
}

// SSUBSCRIBE shardchannel [shardchannel ...]
func cmdSSubscribe(c *Ctx, args [][]byte) error {
	c.subscribe(shardSub, args[1:])
	return nil
}

// UNSUBSCRIBE [channel [channel ...]]
func cmdUnsubscribe(c *Ctx, args [][]byte) error {
	c.unsubscribe(channelSub, args[1:])
	return nil
}

// PUNSUBSCRIBE [pattern [pattern ...]]
func cmdPUnsubscribe(c *Ctx, args [][]byte) error {
	c.unsubscribe(patternSub, args[1:])
	return nil
}

// SUNSUBSCRIBE [shardchannel [shardchannel ...]]
func cmdSUnsubscribe(c *Ctx, args [][]byte) error {
	c.unsubscribe(shardSub, args[1:])
	return nil
}

// PUBLISH channel message: the number of clients that received it.
func cmdPublish(c *Ctx, args [][]byte) error {
	c.Reply().Int(c.Srv.publish(channelSub, args[1], args[2]))
	c.Srv.propagatePublish("PUBLISH", args[1], args[2])
	return nil
}

// SPUBLISH shardchannel message
func cmdSPublish(c *Ctx, args [][]byte) error {
	c.Reply().Int(c.Srv.publish(shardSub, args[1], args[2]))
	c.Srv.propagatePublish("SPUBLISH", args[1], args[2])
	return nil
}

// PUBSUB CHANNELS [pattern]: the channels that have subscribers.
func cmdPubsubChannels(c *Ctx, args [][]byte) error {
	replyChannels(c, channelSub, args)
	return nil
}

// PUBSUB SHARDCHANNELS [pattern]
func cmdPubsubShardChannels(c *Ctx, args [][]byte) error {
	replyChannels(c, shardSub, args)
	return nil
}

// replyChannels replies the channels of kind k matching args[2], or all.
func replyChannels(c *Ctx, k subKind, args [][]byte) {
	var pattern []byte
	if len(args) > 2 {
		pattern = args[2]
	}
	c.Reply().Bulks(c.Srv.pubsub.names(k, pattern))
}

// PUBSUB NUMSUB [channel ...]: each channel and its number of subscribers
// (pattern subscriptions do not count), as a flat array, as in Redis 7.0.
func cmdPubsubNumSub(c *Ctx, args [][]byte) error {
	replyNumSub(c, channelSub, args[2:])
	return nil
}

// PUBSUB SHARDNUMSUB [shardchannel ...]
func cmdPubsubShardNumSub(c *Ctx, args [][]byte) error {
	replyNumSub(c, shardSub, args[2:])
	return nil
}

func replyNumSub(c *Ctx, k subKind, channels [][]byte) {
	r := c.Reply()
	r.Array(2 * len(channels))
	for _, ch := range channels {
		r.Bulk(ch)
		r.Int(int64(c.Srv.pubsub.subscribers(k, ch)))
	}
}

// PUBSUB NUMPAT: the number of patterns that have subscribers.
func cmdPubsubNumPat(c *Ctx, _ [][]byte) error {
	c.Reply().Int(int64(c.Srv.pubsub.count(patternSub)))
	return nil
}

// PUBSUB HELP
func cmdPubsubHelp(c *Ctx, _ [][]byte) error {
	writeHelp(c, "pubsub", []string{
		"CHANNELS [<pattern>]",
		"    Return the currently active channels matching a <pattern> (default: '*').",
		"NUMPAT",
		"    Return number of subscriptions to patterns.",
		"NUMSUB [<channel> ...]",
		"    Return the number of subscribers for the specified channels, excluding",
		"    pattern subscriptions(default: no channels).",
		"SHARDCHANNELS [<pattern>]",
		"    Return the currently active shard level channels matching a <pattern> (default: '*').",
		"SHARDNUMSUB [<shardchannel> ...]",
		"    Return the number of subscribers for the specified shard level channel(s)",
	})
	return nil
}

// pubsubFlags are the flags Redis 7.0 gives every (un)subscribe command.
const pubsubFlags = PubSub | NoScript | Loading | Stale

var pubsubSubcommands = []Subcommand{
	sub("channels", -2, PubSub|Loading|Stale, cmdPubsubChannels, cmdDoc{summary: "List active channels", since: "2.8.0", group: "pubsub",
		complexity: "O(N) where N is the number of active channels, and assuming constant time pattern matching (relatively short channels and patterns)", args: "[pattern]"}).
		shaped(atMost(3, shapeSubcommandSyntax)),
	sub("numsub", -2, PubSub|Loading|Stale, cmdPubsubNumSub, cmdDoc{summary: "Get the count of subscribers for channels", since: "2.8.0", group: "pubsub",
		complexity: "O(N) for the NUMSUB subcommand, where N is the number of requested channels", args: "[channel [channel ...]]"}),
	sub("numpat", 2, PubSub|Loading|Stale, cmdPubsubNumPat, cmdDoc{summary: "Get the count of unique patterns pattern subscriptions", since: "2.8.0", group: "pubsub",
		complexity: "O(1)"}),
	sub("shardchannels", -2, PubSub|Loading|Stale, cmdPubsubShardChannels, cmdDoc{summary: "List active shard channels", since: "7.0.0", group: "pubsub",
		complexity: "O(N) where N is the number of active shard channels, and assuming constant time pattern matching (relatively short shard channels).", args: "[pattern]"}).
		shaped(atMost(3, shapeSubcommandSyntax)),
	sub("shardnumsub", -2, PubSub|Loading|Stale, cmdPubsubShardNumSub, cmdDoc{summary: "Get the count of subscribers for shard channels", since: "7.0.0", group: "pubsub",
		complexity: "O(N) for the SHARDNUMSUB subcommand, where N is the number of requested shard channels", args: "[shardchannel [shardchannel ...]]"}),
	sub("help", 2, Loading|Stale, cmdPubsubHelp, cmdDoc{summary: "Show helpful text about the different subcommands", since: "6.2.0", group: "pubsub",
		complexity: "O(1)"}),
}

// shardChannels is the key spec Redis gives the shard channels of
// SSUBSCRIBE and SUNSUBSCRIBE (all the arguments) and SPUBLISH (the first):
// not_key, for cluster routing only. The rows have the spec but no key
// range: a range is keys to Shale (COMMAND GETKEYS, locking), and Redis's
// COMMAND GETKEYS finds none in them either. tests/command_table_test.go
// lists the difference in first, last and step.
func shardChannels(last int) KeySpec {
	return KeySpec{Flags: KeyNotKey, Begin: BeginSearch{Index: 1}, Find: FindKeys{LastKey: last, KeyStep: 1}}
}

// pubsubCommands are the pub/sub commands' rows.
var pubsubCommands = []Command{
	cmd("subscribe", -2, pubsubFlags, 0, 0, 0, cmdSubscribe).
		doc("Listen for messages published to the given channels", "2.0.0", "pubsub",
			"O(N) where N is the number of channels to subscribe to.", "channel [channel ...]"),
	cmd("unsubscribe", -1, pubsubFlags, 0, 0, 0, cmdUnsubscribe).
		doc("Stop listening for messages posted to the given channels", "2.0.0", "pubsub",
			"O(N) where N is the number of clients already subscribed to a channel.", "[channel [channel ...]]"),
	cmd("psubscribe", -2, pubsubFlags, 0, 0, 0, cmdPSubscribe).
		doc("Listen for messages published to channels matching the given patterns", "2.0.0", "pubsub",
			"O(N) where N is the number of patterns the client is already subscribed to.", "pattern [pattern ...]"),
	cmd("punsubscribe", -1, pubsubFlags, 0, 0, 0, cmdPUnsubscribe).
		doc("Stop listening for messages posted to channels matching the given patterns", "2.0.0", "pubsub",
			"O(N+M) where N is the number of patterns the client is already subscribed and M is the number of total patterns subscribed in the system (by any client).", "[pattern [pattern ...]]"),
	cmd("ssubscribe", -2, pubsubFlags, 0, 0, 0, cmdSSubscribe).keySpecs(shardChannels(-1)).
		doc("Listen for messages published to the given shard channels", "7.0.0", "pubsub",
			"O(N) where N is the number of shard channels to subscribe to.", "shardchannel [shardchannel ...]"),
	cmd("sunsubscribe", -1, pubsubFlags, 0, 0, 0, cmdSUnsubscribe).keySpecs(shardChannels(-1)).
		doc("Stop listening for messages posted to the given shard channels", "7.0.0", "pubsub",
			"O(N) where N is the number of clients already subscribed to a shard channel.", "[shardchannel [shardchannel ...]]"),
	cmd("publish", 3, PubSub|Loading|Stale|Fast, 0, 0, 0, cmdPublish).
		doc("Post a message to a channel", "2.0.0", "pubsub",
			"O(N+M) where N is the number of clients subscribed to the receiving channel and M is the total number of subscribed patterns (by any client).", "channel message"),
	cmd("spublish", 3, PubSub|Loading|Stale|Fast, 0, 0, 0, cmdSPublish).keySpecs(shardChannels(0)).
		doc("Post a message to a shard channel", "7.0.0", "pubsub",
			"O(N) where N is the number of clients subscribed to the receiving shard channel.", "shardchannel message"),
	cmd("pubsub", -2, 0, 0, 0, 0, nil).withSubcommands(pubsubSubcommands).
		doc("A container for Pub/Sub commands", "2.8.0", "pubsub", "Depends on subcommand.", ""),
}
