/* retrobook probing library: Fathom's API over retrobook's tables. MIT OR Apache-2.0.
 *
 * An engine written against Fathom's tbprobe.h compiles against this header and links
 * libretrobook instead of Fathom's tbprobe.c, without changing a line. Same names,
 * arguments, result encoding and macros; the tables are retrobook's (`retrobook gen`),
 * found in the folders given to tb_init.
 *
 * Where the answers differ from Fathom's on Syzygy's files:
 * - distances to zeroing are exact to the ply (Syzygy's default files round some by one);
 * - the move tb_probe_root suggests is Fathom's (in a won position the nearest capture,
 *   pawn move or mate that keeps the win), found from exact distances; the fastest mate
 *   among the moves that keep the win is retrobook's rb_probe_root_clock (retrobook.h);
 * - tb_probe_root_dtz scores a win or loss the 50-move rule draws 1 to 49 centipawns from
 *   its rank, as Stockfish's formula reads (Fathom's min and max macros make it the rank
 *   less 400, about 4 to 5 pawns for a draw);
 * - the move count is not kept in a byte (Fathom's wraps after 255);
 * - tb_init returns false when a folder cannot be read or holds a damaged table.
 *
 * Squares are numbered 0 = a1 .. 63 = h8; turn is true for white.
 */

#ifndef TBPROBE_H
#define TBPROBE_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Not called directly: the inline functions below call them. */
extern unsigned tb_probe_wdl_impl(uint64_t _white, uint64_t _black, uint64_t _kings,
    uint64_t _queens, uint64_t _rooks, uint64_t _bishops, uint64_t _knights,
    uint64_t _pawns, unsigned _ep, bool _turn);
extern unsigned tb_probe_root_impl(uint64_t _white, uint64_t _black, uint64_t _kings,
    uint64_t _queens, uint64_t _rooks, uint64_t _bishops, uint64_t _knights,
    uint64_t _pawns, unsigned _rule50, unsigned _ep, bool _turn, unsigned *_results);

#define TB_MAX_MOVES                (192+1)
#define TB_MAX_CAPTURES             64
#define TB_MAX_PLY                  256
#define TB_CASTLING_K               0x1     /* white king side */
#define TB_CASTLING_Q               0x2     /* white queen side */
#define TB_CASTLING_k               0x4     /* black king side */
#define TB_CASTLING_q               0x8     /* black queen side */

/* Classes under the 50-move rule, for the side to move. */
#define TB_LOSS                     0       /* lost */
#define TB_BLESSED_LOSS             1       /* lost, but drawn by the 50-move rule */
#define TB_DRAW                     2       /* drawn */
#define TB_CURSED_WIN               3       /* won, but drawn by the 50-move rule */
#define TB_WIN                      4       /* won */

#define TB_PROMOTES_NONE            0
#define TB_PROMOTES_QUEEN           1
#define TB_PROMOTES_ROOK            2
#define TB_PROMOTES_BISHOP          3
#define TB_PROMOTES_KNIGHT          4

/* A root result packs a class, a move and a distance to zeroing in 32 bits. */
#define TB_RESULT_WDL_MASK          0x0000000F
#define TB_RESULT_TO_MASK           0x000003F0
#define TB_RESULT_FROM_MASK         0x0000FC00
#define TB_RESULT_PROMOTES_MASK     0x00070000
#define TB_RESULT_EP_MASK           0x00080000
#define TB_RESULT_DTZ_MASK          0xFFF00000
#define TB_RESULT_WDL_SHIFT         0
#define TB_RESULT_TO_SHIFT          4
#define TB_RESULT_FROM_SHIFT        10
#define TB_RESULT_PROMOTES_SHIFT    16
#define TB_RESULT_EP_SHIFT          19
#define TB_RESULT_DTZ_SHIFT         20

#define TB_GET_WDL(_res) \
    (((_res) & TB_RESULT_WDL_MASK) >> TB_RESULT_WDL_SHIFT)
#define TB_GET_TO(_res) \
    (((_res) & TB_RESULT_TO_MASK) >> TB_RESULT_TO_SHIFT)
#define TB_GET_FROM(_res) \
    (((_res) & TB_RESULT_FROM_MASK) >> TB_RESULT_FROM_SHIFT)
#define TB_GET_PROMOTES(_res) \
    (((_res) & TB_RESULT_PROMOTES_MASK) >> TB_RESULT_PROMOTES_SHIFT)
#define TB_GET_EP(_res) \
    (((_res) & TB_RESULT_EP_MASK) >> TB_RESULT_EP_SHIFT)
#define TB_GET_DTZ(_res) \
    (((_res) & TB_RESULT_DTZ_MASK) >> TB_RESULT_DTZ_SHIFT)

#define TB_SET_WDL(_res, _wdl) \
    (((_res) & ~TB_RESULT_WDL_MASK) | \
     (((_wdl) << TB_RESULT_WDL_SHIFT) & TB_RESULT_WDL_MASK))
#define TB_SET_TO(_res, _to) \
    (((_res) & ~TB_RESULT_TO_MASK) | \
     (((_to) << TB_RESULT_TO_SHIFT) & TB_RESULT_TO_MASK))
#define TB_SET_FROM(_res, _from) \
    (((_res) & ~TB_RESULT_FROM_MASK) | \
     (((_from) << TB_RESULT_FROM_SHIFT) & TB_RESULT_FROM_MASK))
#define TB_SET_PROMOTES(_res, _promotes) \
    (((_res) & ~TB_RESULT_PROMOTES_MASK) | \
     (((_promotes) << TB_RESULT_PROMOTES_SHIFT) & TB_RESULT_PROMOTES_MASK))
#define TB_SET_EP(_res, _ep) \
    (((_res) & ~TB_RESULT_EP_MASK) | \
     (((_ep) << TB_RESULT_EP_SHIFT) & TB_RESULT_EP_MASK))
#define TB_SET_DTZ(_res, _dtz) \
    (((_res) & ~TB_RESULT_DTZ_MASK) | \
     (((_dtz) << TB_RESULT_DTZ_SHIFT) & TB_RESULT_DTZ_MASK))

#define TB_RESULT_CHECKMATE         TB_SET_WDL(0, TB_WIN)
#define TB_RESULT_STALEMATE         TB_SET_WDL(0, TB_DRAW)
#define TB_RESULT_FAILED            0xFFFFFFFF

/* The most pieces of a position the open tables answer for; 0 before tb_init. */
extern unsigned TB_LARGEST;

/* Opens the tables of the folders in path, separated by ':' (';' on Windows), closing
 * those open before. Returns true on success, also for NULL, "" or "<empty>" (no tables:
 * TB_LARGEST is 0); false when a folder cannot be read or holds a damaged table. */
bool tb_init(const char *_path);

/* Closes the tables tb_init opened. */
void tb_free(void);

/* Win, draw or loss for the side to move with the move count at zero: TB_LOSS ..
 * TB_WIN, or TB_RESULT_FAILED (castling rights, a count other than 0, a table missing).
 * Thread-safe: the probe to use in search. */
static inline unsigned tb_probe_wdl(uint64_t _white, uint64_t _black, uint64_t _kings,
    uint64_t _queens, uint64_t _rooks, uint64_t _bishops, uint64_t _knights,
    uint64_t _pawns, unsigned _rule50, unsigned _castling, unsigned _ep, bool _turn)
{
    if (_castling != 0)
        return TB_RESULT_FAILED;
    if (_rule50 != 0)
        return TB_RESULT_FAILED;
    return tb_probe_wdl_impl(_white, _black, _kings, _queens, _rooks, _bishops,
        _knights, _pawns, _ep, _turn);
}

/* The root probe: the position's class from the move count rule50 (TB_GET_WDL), a move
 * that keeps it (TB_GET_FROM, TB_GET_TO, TB_GET_PROMOTES, TB_GET_EP) and the position's
 * distance to zeroing (TB_GET_DTZ), packed in one result; TB_RESULT_CHECKMATE or
 * TB_RESULT_STALEMATE when the side to move has no move; TB_RESULT_FAILED. Where results
 * is not NULL (room for TB_MAX_MOVES), every legal move's result follows there, ended by
 * TB_RESULT_FAILED. Thread-safe here (Fathom's is not). */
static inline unsigned tb_probe_root(uint64_t _white, uint64_t _black, uint64_t _kings,
    uint64_t _queens, uint64_t _rooks, uint64_t _bishops, uint64_t _knights,
    uint64_t _pawns, unsigned _rule50, unsigned _castling, unsigned _ep, bool _turn,
    unsigned *_results)
{
    if (_castling != 0)
        return TB_RESULT_FAILED;
    return tb_probe_root_impl(_white, _black, _kings, _queens, _rooks, _bishops,
        _knights, _pawns, _rule50, _ep, _turn, _results);
}

typedef uint16_t TbMove;

#define TB_MOVE_FROM(move) \
    (((move) >> 6) & 0x3F)
#define TB_MOVE_TO(move) \
    ((move) & 0x3F)
#define TB_MOVE_PROMOTES(move) \
    (((move) >> 12) & 0x7)

struct TbRootMove {
    TbMove move;
    TbMove pv[TB_MAX_PLY];  /* pv[0] is the move */
    unsigned pvSize;        /* 1 */
    int32_t tbScore, tbRank;
};

struct TbRootMoves {
    unsigned size;
    struct TbRootMove moves[TB_MAX_MOVES];
};

/* Every root move with its rank and score from its distance to zeroing and the move
 * count: a win kept whatever the count ranks 1000, a draw 0, losses below; useRule50
 * false scores a win the rule spoils as a win. Returns nonzero on success, 0 when a
 * probe failed. */
int tb_probe_root_dtz(uint64_t _white, uint64_t _black, uint64_t _kings,
    uint64_t _queens, uint64_t _rooks, uint64_t _bishops, uint64_t _knights,
    uint64_t _pawns, unsigned _rule50, unsigned _castling, unsigned _ep, bool _turn,
    bool hasRepeated, bool useRule50, struct TbRootMoves *_results);

/* Every root move with its rank and score from its class alone. Returns nonzero on
 * success, 0 when a probe failed. */
int tb_probe_root_wdl(uint64_t _white, uint64_t _black, uint64_t _kings,
    uint64_t _queens, uint64_t _rooks, uint64_t _bishops, uint64_t _knights,
    uint64_t _pawns, unsigned _rule50, unsigned _castling, unsigned _ep, bool _turn,
    bool useRule50, struct TbRootMoves *_results);

#ifndef TB_NO_HELPER_API

extern unsigned tb_pop_count(uint64_t _bb);
extern unsigned tb_lsb(uint64_t _bb);
extern uint64_t tb_pop_lsb(uint64_t _bb);
extern uint64_t tb_king_attacks(unsigned _square);
extern uint64_t tb_queen_attacks(unsigned _square, uint64_t _occ);
extern uint64_t tb_rook_attacks(unsigned _square, uint64_t _occ);
extern uint64_t tb_bishop_attacks(unsigned _square, uint64_t _occ);
extern uint64_t tb_knight_attacks(unsigned _square);
extern uint64_t tb_pawn_attacks(unsigned _square, bool _color);

#endif

#ifdef __cplusplus
}
#endif

#endif
