/// Sets the process-wide setting at `setting` (a cache's capacity, the system store's check
/// interval) to `value` for one test, and returns what puts the old value back:
/// `let restore = setTemporarily(\VerifiedChainCache.Type.capacity, to: 2); defer { restore() }`.
func setTemporarily<Root, Value>(_ setting: ReferenceWritableKeyPath<Root.Type, Value>, to value: Value) -> () -> Void {
    let saved = Root.self[keyPath: setting]
    Root.self[keyPath: setting] = value
    return { Root.self[keyPath: setting] = saved }
}
