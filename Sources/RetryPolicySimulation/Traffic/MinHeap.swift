/// A binary min-heap; the event queue of ``SimulatedTraffic``.
///
/// Both sifts move a hole rather than swapping: one write per level.
struct MinHeap<Element: Comparable> {
    private var items: [Element] = []

    /// The smallest element, left in place.
    var first: Element? { items.first }

    mutating func push(_ item: Element) {
        items.append(item)
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard item < items[parent] else { break }
            items[child] = items[parent]
            child = parent
        }
        items[child] = item
    }

    mutating func pop() -> Element? {
        guard let top = items.first else { return nil }
        let last = items.removeLast()
        let count = items.count
        guard count > 0 else { return top }
        var parent = 0
        while true {
            let left = 2 * parent + 1
            guard left < count else { break }
            let right = left + 1
            let smaller = right < count && items[right] < items[left] ? right : left
            guard items[smaller] < last else { break }
            items[parent] = items[smaller]
            parent = smaller
        }
        items[parent] = last
        return top
    }
}
