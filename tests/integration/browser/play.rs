//! The page driven as a person would: moves clicked, boards drawn and fitted to a phone
//! and a desktop, enumerations counted, english33 and fifteen played to the goal.

use super::*;

#[test]
#[ignore = "needs chromium and chromium-driver; run by .ci/run"]
fn browser_eight_best_moves_to_the_goal() {
    let Some(d) = driver() else { return };
    let addr = start_server(shared_db());
    with_session(&d, move |c| async move {
        open(&c, addr, "#/eight").await;
        let input = c.find(Locator::Id("position")).await.unwrap();
        input.clear().await.unwrap();
        input.send_keys("867254301").await.unwrap();
        click_id(&c, "go").await;
        wait_distance(&c, 31).await;
        assert_eq!(position(&c).await, "867254301");
        // The page may write the address just after it draws the answer.
        wait_until("the address to hold the position", || async {
            (c.current_url().await.unwrap().as_str()).ends_with("#/eight/867254301")
        })
        .await;
        // A tile that cannot move: cell 0 is not next to the blank (cell 7).
        let before = js(&c, "return document.getElementById('board').innerHTML;").await;
        click_cell(&c, 0).await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_eq!(position(&c).await, "867254301");
        assert_eq!(distance(&c).await, json!(31));
        assert_eq!(
            js(&c, "return document.getElementById('board').innerHTML;").await,
            before,
            "nothing changes"
        );
        // Every legal move is listed with its distance, coloured against the current one.
        let listed = js(
            &c,
            "return [...document.querySelectorAll('#moves li')].map(l => l.className);",
        )
        .await;
        assert_eq!(listed, json!(["better", "better", "better"]));
        // Each names the tile that moves and the way it goes: the blank is at cell 7
        // (bottom middle), so 5 comes down, 3 goes right and 1 goes left.
        let mut named: Vec<String> = serde_json::from_value(
            js(
                &c,
                "return [...document.querySelectorAll('#moves li .what')].map(w => w.textContent);",
            )
            .await,
        )
        .unwrap();
        named.sort();
        assert_eq!(named, ["1 \u{2190}", "3 \u{2192}", "5 \u{2193}"]);
        for left in (0..31).rev() {
            click_id(&c, "best").await;
            wait_distance(&c, left).await;
        }
        assert_eq!(position(&c).await, "123456780");
        // The browser's Back returns along the line, and the page's forward button.
        c.back().await.unwrap();
        wait_distance(&c, 1).await;
        click_id(&c, "forward").await;
        wait_distance(&c, 0).await;
        // The space key plays a best move too.
        open(&c, addr, "#/eight/867254301").await;
        wait_distance(&c, 31).await;
        c.find(Locator::Css("body"))
            .await
            .unwrap()
            .send_keys(" ")
            .await
            .unwrap();
        wait_distance(&c, 30).await;
        // A malformed position is reported beside the box and changes nothing.
        let input = c.find(Locator::Id("position")).await.unwrap();
        input.clear().await.unwrap();
        input.send_keys("12345").await.unwrap();
        click_id(&c, "go").await;
        wait_until("the parser's error", || async {
            js(
                &c,
                "return document.getElementById('position-error').textContent;",
            )
            .await
            .as_str()
            .is_some_and(|t| t.contains("expected 9 cells"))
        })
        .await;
        assert_eq!(distance(&c).await, json!(30));
    });
}

/// A screenshot of every light puzzle's board, and its histogram drawn as bars (tours:
/// the tours drawn).
#[test]
#[ignore = "needs chromium and chromium-driver; run by .ci/run"]
fn browser_screenshots_of_every_board() {
    let Some(d) = driver() else { return };
    let addr = start_server(shared_db());
    // Each puzzle's cells, as its page's layout gives them.
    let cells: Vec<u64> = (crate::util::LIGHT.iter())
        .map(|name| {
            let page = crate::serve::ok_at(addr, &format!("/api/puzzles/{name}"));
            page["layout"]["cells"].as_array().unwrap().len() as u64
        })
        .collect();
    with_session(&d, move |c| async move {
        for (&name, &cells) in crate::util::LIGHT.iter().zip(&cells) {
            // Wait for this puzzle's own board: one cell per cell of its layout (the
            // previous puzzle's board stays up until the new one is drawn).
            open(&c, addr, &format!("#/{name}")).await;
            wait_until(&format!("{name}'s board"), || async {
                js(
                    &c,
                    "return document.querySelectorAll('#board g.cell').length;",
                )
                .await
                .as_u64()
                .unwrap_or(0)
                    == cells
            })
            .await;
            let bars = js(
                &c,
                "return document.querySelectorAll('#histogram rect.bar').length;",
            )
            .await;
            // Tours have no histogram: they are drawn instead.
            let drawn = if name.starts_with("knight-tour") {
                js(
                    &c,
                    "return document.querySelectorAll('#extra svg.tour').length;",
                )
                .await
            } else {
                bars
            };
            assert!(
                drawn.as_u64().unwrap() > 0,
                "{name}: histogram bars or tours"
            );
            screenshot_board(&c, name).await;
        }
    });
}

/// Every puzzle the shared test database holds, at a phone's size and a desktop's:
/// nothing wider than the screen, move entries that never overlap, a screenshot of each
/// page (`target/screenshots/NAME-390x844.png`, `NAME-1280x1000.png`); and the page's
/// icon is an image of its own.
#[test]
#[ignore = "needs chromium and chromium-driver; run by .ci/run"]
fn browser_every_page_fits_a_phone_and_a_desktop() {
    let Some(d) = driver() else { return };
    let addr = start_server(shared_db());
    with_session(&d, move |c| async move {
        open(&c, addr, "").await;
        let names: Vec<String> = serde_json::from_value(
            js(
                &c,
                "return [...document.querySelectorAll('#puzzle option')].map(o => o.value);",
            )
            .await,
        )
        .unwrap();
        for &light in crate::util::LIGHT {
            assert!(
                names.iter().any(|n| n == light),
                "{light} is offered: {names:?}"
            );
        }
        let mut faults = Vec::new();
        for name in &names {
            open(&c, addr, &format!("#/{name}")).await;
            wait_shown(&c, name).await;
            faults.extend(page_faults(&c, name, "").await);
        }
        assert!(faults.is_empty(), "{}", faults.join("\n"));
        // The icon is inline (no request to the server) and an image a browser draws.
        let icon = js(
            &c,
            "const l = document.querySelector('link[rel=icon]');
             if (!l || !l.href.startsWith('data:image/svg+xml,')) return 'no inline SVG icon';
             const img = new Image();
             const loaded = new Promise((ok) => { img.onload = () => ok(img.naturalWidth);
                                                 img.onerror = () => ok('the icon fails to load'); });
             img.src = l.href;
             return loaded;",
        )
        .await;
        assert!(icon.as_u64().is_some_and(|w| w > 0), "{icon}");
    });
}

/// The magic triangle and the knight's tours: their figures count solutions (not
/// positions), and the buttons that walk a line of moves are not shown at all.
#[test]
#[ignore = "needs chromium and chromium-driver; run by .ci/run"]
fn browser_enumerations_count_solutions_and_show_no_move_buttons() {
    let Some(d) = driver() else { return };
    let addr = start_server(shared_db());
    with_session(&d, move |c| async move {
        for name in ["magic-triangle", "knight-tour", "eight"] {
            open(&c, addr, &format!("#/{name}")).await;
            wait_shown(&c, name).await;
            let figures = js(&c, "return document.getElementById('figures').textContent;")
                .await
                .as_str()
                .unwrap()
                .to_string();
            let shown = js(
                &c,
                "return ['back', 'best', 'forward'].filter(id => {
                     const b = document.getElementById(id);
                     return !b.hidden && b.getClientRects().length > 0;
                 });",
            )
            .await;
            if name == "eight" {
                assert!(figures.contains(" positions"), "{name}: {figures}");
                assert_eq!(shown, json!(["back", "best", "forward"]), "{name}");
            } else {
                assert!(
                    figures.contains(" solutions") && !figures.contains("positions"),
                    "{name}: {figures}"
                );
                assert_eq!(shown, json!([]), "{name}: buttons that do nothing here");
            }
        }
    });
}

/// The English central game, played by clicking each move's peg and landing hole.
#[test]
#[ignore = "needs chromium and chromium-driver and builds english33 (about 15 s in release)"]
fn browser_english33_central_game_by_clicking() {
    let Some(d) = driver() else { return };
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("english33.sqlite");
    generate_into(&db, &["english33"], false);
    let answer = query_json_in(&db, &["--puzzle", "english33", "--start"]);
    assert_eq!(answer["distance"], 18);
    let addr = start_server(&db);
    with_session(&d, move |c| async move {
        open(&c, addr, "#/english33").await;
        wait_distance(&c, 18).await;
        screenshot_board(&c, "english33").await;
        // The board, its 33x33 matrix and its moves fit a phone's screen too.
        assert_page_fits(&c, "english33", "").await;
        for i in 0..18u64 {
            // The next move of an optimal line from what the page shows: its peg, then
            // the hole where its chain of jumps ends.
            let here = position(&c).await;
            let a = query_json_in(&db, &["--puzzle", "english33", "--state", &here]);
            assert_eq!(a["distance"], 18 - i);
            let mv: Vec<usize> = serde_json::from_value(a["moves"][0].clone()).unwrap();
            click_cell(&c, mv[0]).await;
            wait_until("the peg to be selected", || async {
                js(
                    &c,
                    "return document.querySelectorAll('#board g.target').length;",
                )
                .await
                .as_u64()
                .unwrap_or(0)
                    > 0
            })
            .await;
            click_cell(&c, *mv.last().unwrap()).await;
            wait_distance(&c, 17 - i).await;
        }
        let finish = "000000000000000010000000000000000";
        assert_eq!(position(&c).await, finish);
        screenshot_board(&c, "english33-finish").await;
    });
}

/// The classes of the listed legal moves and their distances as the page shows them.
async fn listed_moves(c: &Client) -> Vec<(String, u64)> {
    let v = js(
        c,
        "return [...document.querySelectorAll('#moves li')].map(l =>
            [l.className, Number(l.textContent.trim().split(/\\s+/).pop())]);",
    )
    .await;
    serde_json::from_value(v).unwrap()
}

/// Every legal move of the position shown (distance `d`) has a distance, one more or one
/// less, coloured accordingly, and at least one is one less.
async fn assert_moves_one_apart(c: &Client, d: u64) {
    let moves = listed_moves(c).await;
    assert!(moves.len() >= 2, "{moves:?}");
    for (class, m) in &moves {
        assert!(*m + 1 == d || *m == d + 1, "{moves:?} at {d}");
        assert_eq!(class, if *m < d { "better" } else { "worse" }, "{moves:?}");
    }
    assert!(moves.iter().any(|(_, m)| *m + 1 == d), "{moves:?}");
}

/// `fifteen` (answered by search): the page opens on Korf's first instance rather than
/// an empty board, shows no histogram heading, lists every legal move with its distance,
/// scrambles to a random solvable position, and plays best moves to the goal from one
/// of Korf's instances picked among the examples. A search the server gives up on is a
/// message, and the board stays.
#[test]
#[ignore = "needs chromium and chromium-driver; run by .ci/run"]
fn browser_fifteen_opens_scrambles_and_plays_korf_to_the_goal() {
    let Some(d) = driver() else { return };
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fifteen.sqlite");
    generate_into(&db, &["fifteen"], false);
    let addr = start_server(&db);
    let impatient = crate::serve::start_server_with(
        &db,
        puzzlebase_cli::server::HEADER_TIMEOUT,
        puzzlebase_cli::server::ServeOptions {
            search_timeout: Duration::from_millis(1),
            ..Default::default()
        },
    );
    let korf = crate::korf::korf100();
    let state = |cells: &[u8]| {
        cells
            .iter()
            .map(|c| c.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    let first = state(&korf[0].cells);
    let first_length = korf[0].length as u64;
    let easy = korf.iter().min_by_key(|k| (k.length, k.number)).unwrap();
    let (easy_state, easy_length) = (state(&easy.cells), easy.length as u64);
    with_session(&d, move |c| async move {
        open(&c, addr, "#/fifteen").await;
        wait_distance(&c, first_length).await;
        assert_eq!(position(&c).await, first);
        assert_eq!(
            js(
                &c,
                "return document.getElementById('histogram-title').hidden;"
            )
            .await,
            json!(true),
            "no histogram, no heading"
        );
        assert_eq!(
            js(
                &c,
                "return document.getElementById('position-error').textContent;"
            )
            .await,
            json!("")
        );
        assert_moves_one_apart(&c, first_length).await;
        screenshot_board(&c, "fifteen").await;
        assert_page_fits(&c, "fifteen", "").await;
        // No stored figures: the panel says why in a sentence rather than stay empty.
        let note = js(
            &c,
            "return document.getElementById('figures-note').textContent;",
        )
        .await;
        assert!(
            note.as_str()
                .is_some_and(|t| t.starts_with("fifteen ") && t.contains("pattern databases")),
            "{note}"
        );

        // Scramble: a new position, solvable (it gets a distance), its moves one apart.
        click_id(&c, "scramble").await;
        wait_until("a scrambled position", || async {
            position(&c).await != first && distance(&c).await.is_u64()
        })
        .await;
        let d = distance(&c).await.as_u64().unwrap();
        assert_moves_one_apart(&c, d).await;
        // Scrambled positions have long names (two-digit tiles): still no overlap.
        assert_page_fits(&c, "fifteen", "scrambled").await;

        // One of Korf's instances from the examples, then best moves to the goal.
        js(
            &c,
            &format!(
                "const s = document.getElementById('examples'); s.value = '{easy_state}';
                 s.dispatchEvent(new Event('change'));"
            ),
        )
        .await;
        // Waited for by position as well: the scramble's distance may be the example's.
        wait_until("the example, at its distance", || async {
            position(&c).await == easy_state && distance(&c).await == json!(easy_length)
        })
        .await;
        for left in (0..easy_length).rev() {
            click_id(&c, "best").await;
            wait_distance(&c, left).await;
        }
        assert_eq!(position(&c).await, "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,0");
        // At the goal every move is one move farther.
        let moves = listed_moves(&c).await;
        assert!(
            moves.len() == 2 && moves.iter().all(|(k, m)| k == "worse" && *m == 1),
            "{moves:?}"
        );
    });
    with_session(&d, move |c| async move {
        // A server that gives up at once: the page says so and keeps no broken board.
        open(&c, impatient, "#/fifteen").await;
        wait_until("the refusal", || async {
            js(
                &c,
                "return document.getElementById('position-error').textContent;",
            )
            .await
            .as_str()
            .is_some_and(|t| t.contains("gave up"))
        })
        .await;
        assert_eq!(
            js(&c, "return document.getElementById('status').textContent;").await,
            json!(""),
            "no search is said to be running any more"
        );
    });
}

/// Lights Out played by clicking the lights the answer's path presses, and the Tower of
/// Hanoi by clicking pegs: each board draws (a light per cell, the pegs with a disc per
/// disc) and each click is the move it names, one closer.
#[test]
#[ignore = "needs chromium and chromium-driver; run by .ci/run"]
fn browser_lights_out_and_hanoi_by_clicking() {
    let Some(d) = driver() else { return };
    let db = crate::lights_hanoi::db();
    let addr = start_server(db);
    with_session(&d, move |c| async move {
        open(&c, addr, "#/lights-out-3").await;
        wait_distance(&c, 5).await;
        let lit = "return document.querySelectorAll('#board rect.light.on').length;";
        assert_eq!(js(&c, lit).await, 9);
        screenshot_board(&c, "lights-out-3").await;
        for i in 0..5u64 {
            // The light whose press leads to the path's next position.
            let here = position(&c).await;
            let a = query_json_in(db, &["--puzzle", "lights-out-3", "--state", &here]);
            let next = a["path"][1].as_str().unwrap().to_string();
            let press = |k: usize| -> String {
                let mut b = here.as_bytes().to_vec();
                let (r, col) = (k / 3, k % 3);
                for (j, light) in b.iter_mut().enumerate() {
                    if r.abs_diff(j / 3) + col.abs_diff(j % 3) <= 1 {
                        *light ^= b'0' ^ b'1';
                    }
                }
                String::from_utf8(b).unwrap()
            };
            let cell = (0..9).find(|&k| press(k) == next).expect("a press");
            click_cell(&c, cell).await;
            wait_distance(&c, 4 - i).await;
        }
        assert_eq!(js(&c, lit).await, 0);

        open(&c, addr, "#/hanoi-3").await;
        wait_distance(&c, 127).await;
        assert_eq!(
            js(
                &c,
                "return document.querySelectorAll('#board g.cell').length;"
            )
            .await,
            3
        );
        assert_eq!(
            js(
                &c,
                "return document.querySelectorAll('#board rect.disc').length;"
            )
            .await,
            7
        );
        screenshot_board(&c, "hanoi-3").await;
        // The smallest disc from A to C, the first move of the tower's one solution.
        click_cell(&c, 0).await;
        click_cell(&c, 2).await;
        wait_distance(&c, 126).await;
        assert_eq!(position(&c).await, "AAAAAAC");
        assert_eq!(
            js(
                &c,
                "return document.querySelectorAll('#board g.peg-C rect.disc').length;"
            )
            .await,
            1
        );
    });
}

/// The permutation puzzles' pages draw their own pictures: the pocket cube as a net of
/// 24 stickers coloured by face (four of each colour when solved), the pancake stack as
/// bars, TopSpin as discs on a track; the moves are listed by name.
#[test]
#[ignore = "needs chromium and chromium-driver; run by .ci/run"]
fn browser_permutation_puzzles_draw_a_cube_a_stack_and_a_ring() {
    let Some(d) = driver() else { return };
    let addr = start_server(crate::permutation::permutation_db());
    with_session(&d, move |c| async move {
        for (hash, selector, count) in [
            ("#/cube2/UUUURRRRFFFFDDDDLLLLBBBB", "rect.sticker", 24u64),
            (
                "#/cube2/UUUURRRRFFFFDDDDLLLLBBBB",
                "rect.sticker[data-face=\"F\"]",
                4,
            ),
            ("#/pancake-6/2,0,1,5,4,3", "rect.pancake", 6),
            ("#/topspin/0,1,2,3,4,5,6,7,8,9", "circle.token", 10),
        ] {
            open(&c, addr, hash).await;
            let script = format!("return document.querySelectorAll('#board {selector}').length;");
            wait_until(&format!("{hash}: {count} of {selector}"), || async {
                js(&c, &script).await.as_u64().unwrap_or(0) == count
            })
            .await;
        }
        open(&c, addr, "#/cube2/UUUURRRRFFFFDDDDLLLLBBBB").await;
        wait_until("the cube's nine named moves", || async {
            js(&c, "return [...document.querySelectorAll('#moves .what')].map(e => e.textContent).sort().join(' ');")
                .await
                .as_str()
                .unwrap_or("")
                == "F F' F2 R R' R2 U U' U2"
        })
        .await;
        screenshot_board(&c, "cube2").await;
    });
}

/// Klotski and Rush Hour on the page: the pieces drawn (a cell per board cell, every
/// covered cell filled with its piece), Klotski played by clicking a piece and then
/// where it goes, Rush Hour's board searched and walked by its best moves, both pages
/// fitting a phone and a desktop.
#[test]
#[ignore = "needs chromium and chromium-driver; run by .ci/run"]
fn browser_sliding_blocks_drawn_and_played() {
    let Some(d) = driver() else { return };
    let addr = start_server(crate::blocks::db());
    with_session(&d, move |c| async move {
        open(&c, addr, "#/klotski").await;
        wait_shown(&c, "klotski").await;
        wait_distance(&c, 81).await;
        assert_eq!(position(&c).await, "BAAB/BAAB/BCCB/BDDB/D..D");
        let count = |sel: &'static str| {
            let c = c.clone();
            async move {
                js(
                    &c,
                    &format!("return document.querySelectorAll('{sel}').length;"),
                )
                .await
                .as_u64()
                .unwrap()
            }
        };
        assert_eq!(count("#board g.cell").await, 20);
        assert_eq!(count("#board rect.block").await, 18);
        // The single at the bottom left (cell 16), then the empty cell next to it (17):
        // one move of the path metric, to a neighbour 80 or 82 moves from the goal.
        click_cell(&c, 16).await;
        click_cell(&c, 17).await;
        wait_until("the single to move", || async {
            position(&c).await == "BAAB/BAAB/BCCB/BDDB/.D.D"
        })
        .await;
        let d = distance(&c).await.as_u64().unwrap();
        assert!(d == 80 || d == 82, "{d}");
        screenshot_board(&c, "klotski").await;
        assert_page_fits(&c, "klotski", "").await;
        // Rush Hour: Fogleman's hardest board, searched, walked by its best moves.
        open(&c, addr, "#/rush-hour").await;
        wait_shown(&c, "rush-hour").await;
        wait_distance(&c, 51).await;
        assert_eq!(count("#board g.cell").await, 36);
        // Seven empty cells on that board.
        assert_eq!(count("#board rect.block").await, 29);
        for left in [50, 49, 48] {
            click_id(&c, "best").await;
            wait_distance(&c, left).await;
        }
        screenshot_board(&c, "rush-hour").await;
        assert_page_fits(&c, "rush-hour", "").await;
    });
}
