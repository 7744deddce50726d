package io.fabricd.collectors.model;

import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * An unmodifiable sorted copy that is known to be one: {@link #of} copies any other map once and
 * hands a FrozenSortedMap back as it is. Records of the host model copy their maps in their
 * constructors (callers may pass mutable ones); a netdev's ~250 driver statistics went through three
 * such copies per collection (with statistics, with DCB), a third of the garbage of a collection on
 * a 16-port host (docs/benchmarks.md, issue 7).
 */
public final class FrozenSortedMap<K, V> implements SortedMap<K, V> {
    private static final FrozenSortedMap<?, ?> EMPTY = new FrozenSortedMap<>(new TreeMap<>());

    private final SortedMap<K, V> view;

    private FrozenSortedMap(TreeMap<K, V> own) {
        this.view = Collections.unmodifiableSortedMap(own);
    }

    /** {@code m} itself when it is a FrozenSortedMap, else a sorted, unmodifiable copy (null: empty). */
    @SuppressWarnings("unchecked")
    public static <K, V> SortedMap<K, V> of(Map<K, V> m) {
        if (m instanceof FrozenSortedMap<K, V> f) {
            return f;
        }
        if (m == null || m.isEmpty()) {
            return (SortedMap<K, V>) EMPTY;
        }
        return new FrozenSortedMap<>(new TreeMap<>(m));
    }

    @Override
    public Comparator<? super K> comparator() {
        return view.comparator();
    }

    @Override
    public SortedMap<K, V> subMap(K fromKey, K toKey) {
        return view.subMap(fromKey, toKey);
    }

    @Override
    public SortedMap<K, V> headMap(K toKey) {
        return view.headMap(toKey);
    }

    @Override
    public SortedMap<K, V> tailMap(K fromKey) {
        return view.tailMap(fromKey);
    }

    @Override
    public K firstKey() {
        return view.firstKey();
    }

    @Override
    public K lastKey() {
        return view.lastKey();
    }

    @Override
    public int size() {
        return view.size();
    }

    @Override
    public boolean isEmpty() {
        return view.isEmpty();
    }

    @Override
    public boolean containsKey(Object key) {
        return view.containsKey(key);
    }

    @Override
    public boolean containsValue(Object value) {
        return view.containsValue(value);
    }

    @Override
    public V get(Object key) {
        return view.get(key);
    }

    @Override
    public V put(K key, V value) {
        return view.put(key, value); // throws
    }

    @Override
    public V remove(Object key) {
        return view.remove(key); // throws
    }

    @Override
    public void putAll(Map<? extends K, ? extends V> m) {
        view.putAll(m); // throws
    }

    @Override
    public void clear() {
        view.clear(); // throws
    }

    @Override
    public Set<K> keySet() {
        return view.keySet();
    }

    @Override
    public Collection<V> values() {
        return view.values();
    }

    @Override
    public Set<Map.Entry<K, V>> entrySet() {
        return view.entrySet();
    }

    @Override
    public boolean equals(Object o) {
        return o == this || view.equals(o);
    }

    @Override
    public int hashCode() {
        return view.hashCode();
    }

    @Override
    public String toString() {
        return view.toString();
    }
}
