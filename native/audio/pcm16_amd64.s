//go:build amd64 && !purego

#include "textflag.h"

// func pcm16ToFloatAVX2(dst []float32, raw []byte)
//
// dst[i] = float32(int16(raw[2i] | raw[2i+1]<<8)) * (1.0/32768) for i < len(dst): 32 samples
// a round, then 8 a round, then one at a time. Loads and stores are unaligned; nothing outside
// raw[:2*len(dst)] is read and nothing outside dst is written.
TEXT ·pcm16ToFloatAVX2(SB), NOSPLIT, $0-48
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), CX
	MOVQ raw_base+24(FP), SI

	MOVL         $0x38000000, AX // float32 1.0/32768 = 2^-15
	VMOVD        AX, X0
	VPBROADCASTD X0, Y0

	CMPQ CX, $32
	JB   loop8

loop32:
	VPMOVSXWD (SI), Y1
	VPMOVSXWD 16(SI), Y2
	VPMOVSXWD 32(SI), Y3
	VPMOVSXWD 48(SI), Y4
	VCVTDQ2PS Y1, Y1
	VCVTDQ2PS Y2, Y2
	VCVTDQ2PS Y3, Y3
	VCVTDQ2PS Y4, Y4
	VMULPS    Y0, Y1, Y1
	VMULPS    Y0, Y2, Y2
	VMULPS    Y0, Y3, Y3
	VMULPS    Y0, Y4, Y4
	VMOVUPS   Y1, (DI)
	VMOVUPS   Y2, 32(DI)
	VMOVUPS   Y3, 64(DI)
	VMOVUPS   Y4, 96(DI)
	ADDQ      $64, SI
	ADDQ      $128, DI
	SUBQ      $32, CX
	CMPQ      CX, $32
	JAE       loop32

loop8:
	CMPQ      CX, $8
	JB        tail
	VPMOVSXWD (SI), Y1
	VCVTDQ2PS Y1, Y1
	VMULPS    Y0, Y1, Y1
	VMOVUPS   Y1, (DI)
	ADDQ      $16, SI
	ADDQ      $32, DI
	SUBQ      $8, CX
	JMP       loop8

tail:
	TESTQ CX, CX
	JZ    done

loop1:
	MOVWLSX    (SI), AX
	VCVTSI2SSL AX, X1, X1
	VMULSS     X0, X1, X1
	VMOVSS     X1, (DI)
	ADDQ       $2, SI
	ADDQ       $4, DI
	DECQ       CX
	JNZ        loop1

done:
	VZEROUPPER
	RET
