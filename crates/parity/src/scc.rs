//! Strongly connected components of a set of vertices, for solving a game one component at a
//! time (Tarjan's algorithm on an explicit stack; the verifier has its own).

use retrograde_graph::Graph;

/// The strongly connected components of the subgraph of `g` induced by `set`, in the order
/// Tarjan's algorithm finds them: a component comes after every component it reaches, so the
/// first are bottom components. Returns the members, component after component, and where
/// each component ends in that list.
///
/// # Complexity
/// O(|set| + the moves of `set`'s vertices) time; 13 bytes per vertex of the graph.
pub(crate) fn components(g: &Graph, set: &[u32]) -> (Vec<u32>, Vec<usize>) {
    const OUTSIDE: u32 = 0;
    const UNSEEN: u32 = 1;
    let n = g.vertex_count();
    // 0: not in the set; 1: in the set, not yet visited; else its discovery index + 2.
    let mut index = vec![OUTSIDE; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    for &v in set {
        index[v as usize] = UNSEEN;
    }
    let mut members = Vec::with_capacity(set.len());
    let mut ends = Vec::new();
    let mut stack: Vec<u32> = Vec::new();
    let mut call: Vec<(u32, usize)> = Vec::new();
    let mut counter = 2u32;
    for &root in set {
        if index[root as usize] != UNSEEN {
            continue;
        }
        call.push((root, 0));
        while let Some(&(v, from)) = call.last() {
            let vi = v as usize;
            if from == 0 && index[vi] == UNSEEN {
                index[vi] = counter;
                low[vi] = counter;
                counter += 1;
                stack.push(v);
                on_stack[vi] = true;
            }
            let moves = g.successors(v);
            let mut next = from;
            let mut child = None;
            while next < moves.len() {
                let w = moves[next] as usize;
                next += 1;
                match index[w] {
                    OUTSIDE => {}
                    UNSEEN => {
                        child = Some(w as u32);
                        break;
                    }
                    i if on_stack[w] => low[vi] = low[vi].min(i),
                    _ => {}
                }
            }
            if let Some(top) = call.last_mut() {
                top.1 = next;
            }
            if let Some(w) = child {
                call.push((w, 0));
                continue;
            }
            call.pop();
            if let Some(&(parent, _)) = call.last() {
                let pi = parent as usize;
                low[pi] = low[pi].min(low[vi]);
            }
            if low[vi] == index[vi] {
                loop {
                    let w = stack.pop().expect("v is on the stack");
                    on_stack[w as usize] = false;
                    members.push(w);
                    if w == v {
                        break;
                    }
                }
                ends.push(members.len());
            }
        }
    }
    (members, ends)
}

#[cfg(test)]
mod tests {
    use super::*;
    use retrograde_graph::GraphBuilder;

    #[test]
    fn bottom_components_first() {
        // 0 <-> 1 -> 2 <-> 3, 4 -> 4, 5 alone; the set leaves out 3.
        let mut b = GraphBuilder::new();
        for (u, v) in [(0, 1), (1, 0), (1, 2), (2, 3), (3, 2), (4, 4)] {
            b.add_edge(u, v);
        }
        b.ensure_vertices(6).unwrap();
        let g = b.build().unwrap();
        let (members, ends) = components(&g, &[0, 1, 2, 4, 5]);
        let mut comps: Vec<Vec<u32>> = Vec::new();
        let mut from = 0;
        for e in ends {
            let mut c = members[from..e].to_vec();
            c.sort();
            comps.push(c);
            from = e;
        }
        assert_eq!(comps, vec![vec![2], vec![0, 1], vec![4], vec![5]]);
    }
}
